import Codes
import ConfigFile
import ConfigReading
import Decoding
import Feedback
import Foundation
import ReadPipeline
import Testing

@Suite struct ConfigFileTests {
    /// The shipped file documents every key at its default, so reading it gives the built-in defaults.
    @Test func shippedFileIsTheDefaults() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../etc/kiosk-scanner/kiosk-scanner.conf").path
        #expect(try ConfigFile.load(path: path) == ScannerConfig())
    }

    @Test func emptyFileIsTheDefaults() throws {
        #expect(try ConfigFile.parse("", file: "empty.conf") == ScannerConfig())
        #expect(try ConfigFile.parse("# only comments\n", file: "c.conf") == ScannerConfig())
    }

    @Test func readsEverySection() throws {
        let config = try ConfigFile.parse(
            """
            camera:
              device: /dev/v4l/by-id/usb-cam-video-index0
              width: 1280
              height: 720
              fps: 15
              controls: { focus_absolute: 30, exposure_auto: 1 }
            viewport:
              rect: [0.1, 0.2, 0.8, 0.5]
            decoder:
              symbologies: [ean13, QR-Code]
              lengths:
                ean13: { min: 13 }
            tracking:
              absence: 1.5
              same_code_timeout: 3
              continuation: 0.8
              misread: 0.1
              confirm: [itf, Codabar]
            socket:
              path: /tmp/s.sock
              mode: "0600"
              group: pos
              format: plain
              hold_count: 0
            """, file: "x.conf")
        #expect(config.camera.device == "/dev/v4l/by-id/usb-cam-video-index0")
        #expect(config.camera.width == 1280 && config.camera.height == 720 && config.camera.fps == 15)
        #expect(config.camera.controls == ["focus_absolute": 30, "exposure_auto": 1])
        // A libcamera camera's controls take fractions, by libcamera's names.
        let libcamera = try ConfigFile.parse(
            "camera:\n  device: libcamera:/base/soc/i2c0mux/i2c@1/imx708@1a\n  controls: { AnalogueGain: 2.5, ExposureTime: 8000 }\n"
                + "  autofocus: manual\n  lens_position: 4.5\n", file: "lc.conf"
        ).camera
        #expect(libcamera.libcameraID == "/base/soc/i2c0mux/i2c@1/imx708@1a")
        #expect(libcamera.controls == ["AnalogueGain": 2.5, "ExposureTime": 8000])
        #expect(libcamera.autofocus == .manual && libcamera.lensPosition == 4.5)
        #expect(config.pipeline.viewport == .rect(x: 0.1, y: 0.2, width: 0.8, height: 0.5))
        #expect(config.pipeline.decoder.symbologies == [.ean13, .qr])
        #expect(config.pipeline.decoder.lengths[.ean13] == LengthLimit(min: 13))
        // ITF keeps its default of 14 digits unless named; `itf: {}` lifts it.
        #expect(config.pipeline.decoder.lengths[.itf] == LengthLimit(min: 14, max: 14))
        let anyITF = try ConfigFile.parse("decoder:\n  lengths:\n    itf: {}\n", file: "itf.conf").pipeline.decoder.lengths[.itf]
        #expect(anyITF == LengthLimit())
        #expect(config.pipeline.tracking.absenceSeconds == 1.5 && config.pipeline.tracking.sameCodeTimeoutSeconds == 3)
        #expect(config.pipeline.tracking.continuationSeconds == 0.8 && config.pipeline.tracking.misreadSeconds == 0.1)
        #expect(config.pipeline.tracking.confirm == [.itf, .codabar])
        #expect(try ConfigFile.parse("tracking:\n  confirm: []\n", file: "none.conf").pipeline.tracking.confirm.isEmpty)
        #expect(try ConfigFile.parse("tracking:\n  confirm_below: 0\n", file: "below.conf").pipeline.tracking.confirmBelow == 0)
        #expect(try ConfigFile.parse("camera:\n  fps: 30\n", file: "default.conf").pipeline.tracking.confirmBelow == 4)
        #expect(try ConfigFile.parse("camera:\n  fps: 30\n", file: "default.conf").pipeline.tracking.confirm == [.itf, .codabar, .code39, .upce, .ean8])
        #expect(config.socket.path == "/tmp/s.sock" && config.socket.mode == 0o600 && config.socket.group == "pos")
        #expect(config.socket.format == .plain && config.socket.holdCount == 0)
    }

    /// Without `symbologies`, the engine decides: `both` adds what only zxing-cpp reads, and
    /// `zxing` leaves out what it cannot read, so neither is a startup error.
    @Test func anEngineAloneBringsItsOwnSymbologies() throws {
        let both = try ConfigFile.parse("decoder:\n  engine: both\n", file: "both.conf").pipeline.decoder.symbologies
        #expect(both == Set(Symbology.zbarDefaults).union([.pdf417, .datamatrix, .aztec, .microqr, .rmqr, .databarLimited]))
        let zxing = try ConfigFile.parse("decoder:\n  engine: zxing\n", file: "zxing.conf").pipeline.decoder.symbologies
        #expect(zxing.contains(.ean13) && zxing.contains(.datamatrix) && zxing.contains(.databar) && !zxing.contains(.isbn13))
        let named = try ConfigFile.parse("decoder:\n  engine: both\n  symbologies: [ean13]\n", file: "named.conf").pipeline.decoder.symbologies
        #expect(named == [.ean13])
    }

    /// Each bad file names the line and the key that is wrong.
    @Test(arguments: BadConfig.general) func errorsNameLineAndKey(_ file: BadConfig) { file.expectRefused() }

    @Test func readsGPIOLinesAndFeedbackPatterns() throws {
        let config = try ConfigFile.parse(
            """
            gpio:
              torch: { chip: pinctrl-bcm2711, line: GPIO17, drive: open-drain }
              flash: { chip: /dev/gpiochip0, line: 22, active_low: true }
              buzzer: { type: passive, pwm_chip: /sys/class/pwm/pwmchip0, pwm_channel: 1, frequency: 4000 }
              trigger: { chip: "0", line: GPIO23, active_low: true, bias: pull-up }
              debounce: 0.03
            feedback:
              good_read: { beep: 0.05, flash: 0.1 }
              error: { repeat: 3, gap: 0.2 }
            """, file: "g.conf")
        #expect(config.gpio.torch?.chip == "pinctrl-bcm2711" && config.gpio.torch?.line == "GPIO17" && config.gpio.torch?.drive == .openDrain)
        #expect(config.gpio.flash?.activeLow == true)
        #expect(config.gpio.buzzer == .passive(pwmChip: "/sys/class/pwm/pwmchip0", channel: 1, frequency: 4000))
        #expect(config.gpio.trigger?.bias == .pullUp && config.gpio.trigger?.chip == "0")
        #expect(config.gpio.debounceSeconds == 0.03)
        #expect(config.gpio.goodRead == FeedbackPattern(beep: 0.05, flash: 0.1))
        #expect(config.gpio.error == FeedbackPattern(beep: 0.3, flash: 0.3, repeatCount: 3, gap: 0.2), "unset keys keep their defaults")
        #expect(try ConfigFile.parse("gpio:\n  buzzer: { chip: 0, line: 27 }\n", file: "b.conf").gpio.buzzer == .active(GPIOLineConfig(chip: "0", line: "27")))
    }

    /// A nak plays the error pattern unless `rejected` is configured (issue #32): the one configured,
    /// not the built-in one. Named patterns start from it too.
    @Test func aNakFollowsTheConfiguredErrorPatternUnlessRejectedIsSet() throws {
        let error = FeedbackPattern(beep: 1, flash: 0, repeatCount: 4, gap: 0.5)
        let following = try ConfigFile.parse(
            "feedback:\n  error: { beep: 1, flash: 0, repeat: 4, gap: 0.5 }\n  named:\n    not-found: { repeat: 1 }\n", file: "e.conf"
        ).gpio
        #expect(following.rejected == error)
        #expect(following.named["not-found"] == FeedbackPattern(beep: 1, flash: 0, repeatCount: 1, gap: 0.5))
        let own = try ConfigFile.parse("feedback:\n  error: { beep: 1, flash: 0, repeat: 4 }\n  rejected: { beep: 0.2 }\n", file: "r.conf").gpio
        #expect(own.rejected == FeedbackPattern(beep: 0.2, flash: 0, repeatCount: 4, gap: 0.1), "set: its own keys, the rest from error")
        #expect(own.error == FeedbackPattern(beep: 1, flash: 0, repeatCount: 4, gap: 0.1))
        #expect(GPIOConfig().rejected == GPIOConfig().error)
    }

    @Test func readsOutputs() throws {
        let config = try ConfigFile.parse(
            """
            outputs:
              - type: serial
                device: /dev/ttyGS0
                baud: 115200
                parity: even
                stop_bits: 2
                flow: rts-cts
                prefix: "<STX>"
                terminator: "\\x03"
                aim: true
                gs1_separator: "<GS>"
              - type: keyboard
                backend: hid-gadget
                layout: fr
                missing: alt-code
                gs_key: ctrl+shift+g
                terminator: tab
              - { type: hid-pos, device: /dev/hidg1, host_control: false, suffix: "!" }
            feedback:
              beep_after: decoded
            """, file: "o.conf")
        guard case .serial(let serial) = config.outputs[0].kind, case .keyboard(let keyboard) = config.outputs[1].kind else {
            Issue.record("\(config.outputs)")
            return
        }
        #expect(serial.device == "/dev/ttyGS0" && serial.baud == 115200 && serial.parity == .even && serial.stopBits == 2 && serial.flow == .rtsCts)
        #expect(config.outputs[0].format.prefix == [0x02] && config.outputs[0].format.terminator == .custom([0x03]) && config.outputs[0].format.aim)
        #expect(config.outputs[0].format.gs1Separator == .replace([0x1D]))
        #expect(keyboard.backend == .hidGadget && keyboard.device == "/dev/hidg0" && keyboard.layout == "fr" && keyboard.missing == .altCode)
        #expect(keyboard.groupSeparator == .character("g", [.ctrl, .shift]))
        #expect(config.outputs[1].format.terminator == .tab)
        guard case .hidPOS(let pos) = config.outputs[2].kind else {
            Issue.record("\(config.outputs[2])")
            return
        }
        #expect(pos.device == "/dev/hidg1" && !pos.hostControl && config.outputs[2].name == "hid-pos /dev/hidg1")
        #expect(config.outputs[2].format.terminator == .none && !config.outputs[2].format.aim && config.outputs[2].format.suffix == Array("!".utf8))
        #expect(config.gpio.beepAfter == .decoded)
        #expect(try ConfigFile.parse("decoder:\n  preprocessing: []\n", file: "p.conf").pipeline.decoder.preprocessing.isEmpty)
        #expect(try ConfigFile.parse("decoder:\n  preprocessing: [inverted]\n", file: "p.conf").pipeline.decoder.preprocessing == [.inverted])
        let keyboardDefaults = try ConfigFile.parse("outputs:\n  - type: keyboard\n", file: "k.conf").outputs[0]
        #expect(keyboardDefaults.format.terminator == .cr, "Enter after each read")
        #expect(keyboardDefaults.name == "keyboard uinput /dev/uinput")
    }

    @Test func syntaxErrorsNameTheLine() {
        let error = #expect(throws: ConfigError.self) { try ConfigFile.parse("camera:\n  fps: 30\n  width: [1, 2\n", file: "s.conf") }
        // libyaml stops at the end of the text, where the flow sequence should have closed.
        #expect(error?.line == 4, "\(String(describing: error))")
        #expect(error?.reason.contains("YAML syntax") == true)
        let tab = #expect(throws: ConfigError.self) { try ConfigFile.parse("camera:\n\tfps: 30\n", file: "t.conf") }
        #expect(tab?.line == 2, "a tab as indentation: \(String(describing: tab))")
    }

    @Test func duplicateKeysAreErrors() {
        let error = #expect(throws: ConfigError.self) { try ConfigFile.parse("camera:\n  fps: 30\n  fps: 15\n", file: "d.conf") }
        // The second occurrence is the mistake; the first is named in the reason.
        #expect(error?.description == "d.conf:3: camera.fps: key given twice (first on line 2)")
    }

    @Test func nullsQuotesAndAliasesReadAsYAMLMeansThem() throws {
        // An empty or ~ section is no section; a quoted number is a string, not a number.
        #expect(try ConfigFile.parse("camera:\ngating: ~\n", file: "n.conf").pipeline.gating == GatingConfig())
        let quoted = #expect(throws: ConfigError.self) { try ConfigFile.parse("camera:\n  fps: \"30\"\n", file: "q.conf") }
        #expect(quoted?.description == "q.conf:2: camera.fps: expected a whole number")
        // An anchor and its alias give the same value.
        let config = try ConfigFile.parse("camera:\n  width: &w 800\n  height: *w\n", file: "a.conf")
        #expect(config.camera.width == 800 && config.camera.height == 800)
        let unknown = #expect(throws: ConfigError.self) { try ConfigFile.parse("camera:\n  width: *nowhere\n", file: "u.conf") }
        #expect(unknown?.line == 2 && unknown?.reason.contains("YAML syntax") == true, "\(String(describing: unknown))")
    }

    @Test func missingFileIsAClearError() {
        let error = #expect(throws: ConfigError.self) { try ConfigFile.load(path: "/nonexistent/k.conf") }
        #expect(error?.description == "/nonexistent/k.conf: cannot read: No such file or directory")
    }
}
