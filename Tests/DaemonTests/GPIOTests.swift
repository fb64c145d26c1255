import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real daemon driving the emulated GPIO chip (libgpiodemu preloaded in front of libgpiod),
/// in front of the emulated camera: torch, beep and flash, trigger button, and clean release.
@Suite(.serialized) struct GPIOTests {
    let bench: CameraBench
    let gpio: EmulatedGPIO
    // Offsets on the emulated chip.
    static let torch = 17, buzzer = 27, flash = 22, button = 23

    static let lines = """
        gpio:
          torch: { chip: gpiochip0, line: GPIO17 }
          buzzer: { type: active, chip: pinctrl-emu, line: 27 }
          flash: { chip: /dev/gpiochip0, line: GPIO22, active_low: true }
          trigger: { chip: 0, line: GPIO23, active_low: true, bias: pull-up }
        """

    init() throws {
        bench = try CameraBench("gpio")
        gpio = try EmulatedGPIO(directory: bench.directory)
        try #require(FileManager.default.fileExists(atPath: EmulatedGPIO.library), "build it with scripts/setup")
    }

    func start(_ extra: String = "", scanner: String = "", lines: String = GPIOTests.lines) throws -> DaemonProcess {
        try bench.start(scanner: scanner, extra: lines + "\n" + extra, environment: gpio.environment())
    }

    func show(_ text: String) throws { try bench.show(text, with: ["background": "200"]) }

    @Test func torchIsOffAtStartAfterAnUnplugAndAtStop() throws {
        try bench.camera.plug(["background": "200"])
        let daemon = try start()
        let client = try daemon.connect()
        let requested = try #require(gpio.waitFor { $0.offset == Self.torch && $0.event == "request-output" })
        #expect(requested.arguments.contains("value=0"), "requested inactive")
        #expect(client.waitFor { $0["type"] as? String == "state" && $0["torch"] as? String == "on" }.match != nil)
        #expect(gpio.value(of: Self.torch) == 1, "auto: on while scanning")

        bench.camera.unplug()
        let lost = try #require(client.waitFor { $0["type"] as? String == "state" && $0["camera"] as? String != "streaming" }.match)
        #expect(lost["torch"] as? String == "off")
        #expect(gpio.value(of: Self.torch) == 0)

        try bench.camera.plug(["background": "200"])
        #expect(client.waitFor { $0["type"] as? String == "state" && $0["torch"] as? String == "on" }.match != nil)
        #expect(daemon.stop() == 0)
        #expect(gpio.value(of: Self.torch) == 0)
        #expect(gpio.entries.last { $0.offset == Self.torch }?.event == "release")
    }

    @Test func heldAndDroppedReadsSoundTheirOwnPatternsAndOnlyADeliveredOneTheGoodRead() throws {
        // Told apart by their number of beeps: good read 1, held 2, dropped 4, startup 3.
        try bench.camera.plug(["background": "200"])
        let daemon = try start(
            """
            feedback:
              good_read: { beep: 0.01, flash: 0, repeat: 1 }
              held: { beep: 0.01, flash: 0, repeat: 2, gap: 0.01 }
              dropped: { beep: 0.01, flash: 0, repeat: 4, gap: 0.01 }
              startup: { beep: 0.01, flash: 0, repeat: 3, gap: 0.01 }
            socket:
              hold_seconds: 0.5
            """)
        #expect(gpio.waitFor { _ in gpio.pulses(of: Self.buzzer).count == 3 } != nil, "the startup pattern")
        // Nobody consumes scans: the read is held, then dropped when it has waited hold_seconds.
        try show("nobody here")
        #expect(daemon.waitForLog("holding read 1"))
        #expect(daemon.waitForLog("read dropped: hold-expired"))
        #expect(gpio.waitFor { _ in gpio.pulses(of: Self.buzzer).count == 3 + 2 + 4 } != nil, "held, then dropped: \(gpio.pulses(of: Self.buzzer).count) beeps")
        // A consumer gets the next read: one beep, the good-read pattern.
        let client = try daemon.connect()
        try show("somebody here")
        #expect(client.waitForScan("somebody here").match != nil)
        #expect(gpio.waitFor { _ in gpio.pulses(of: Self.buzzer).count == 3 + 2 + 4 + 1 } != nil)
        #expect(daemon.stop() == 0)
        #expect(gpio.pulses(of: Self.buzzer).count == 10, "no other pattern sounded")
    }

    @Test func aGoodReadBeepsAndFlashesForTheConfiguredTimes() throws {
        try bench.camera.plug(["background": "200"])
        let daemon = try start("feedback:\n  good_read: { beep: 0.08, flash: 0.15 }\n  startup: { beep: 0.05, flash: 0.05 }\n")
        let client = try daemon.connect()
        // The startup pattern first.
        #expect(gpio.waitFor { $0.offset == Self.buzzer && $0.event == "set" && $0.arguments == ["0"] } != nil)
        let before = gpio.pulses(of: Self.buzzer).count
        try show("beep me")
        #expect(client.waitForScan("beep me").match != nil)
        #expect(gpio.waitFor { $0.offset == Self.flash && $0.event == "set" && $0.arguments == ["0"] && gpio.pulses(of: Self.flash).count >= 2 } != nil)
        let beep = try #require(gpio.pulses(of: Self.buzzer).dropFirst(before).first)
        let flash = try #require(gpio.pulses(of: Self.flash).last)
        let beepMs = Double(beep.off - beep.on) / 1e6
        let flashMs = Double(flash.off - flash.on) / 1e6
        // Pulse lengths are not timed here: on a loaded machine the emulator's stamps of a line's
        // changes come late by tens of milliseconds either way. The bound only tells this pattern
        // from the others, and the order of the player's calls makes beep and flash overlap.
        #expect(beepMs > 0 && beepMs < 80 + 1000, "beep \(beepMs) ms")
        #expect(flashMs > 0 && flashMs < 150 + 1000, "flash \(flashMs) ms")
        #expect(flash.on < beep.off && beep.on < flash.off, "beep and flash sound together")
        #expect(gpio.pulses(of: Self.buzzer).count == before + 1, "one read, one beep")
    }

    @Test func triggerModeReadsExactlyOneCodePerPress() throws {
        try show("pressed")
        let daemon = try start(scanner: "  mode: trigger")
        let client = try daemon.connect()
        #expect(gpio.waitFor { $0.offset == Self.button && $0.event == "request-input" }?.arguments.contains("bias=pull-up") == true)
        #expect(client.waitForScan("pressed", timeout: 1).match == nil, "no read before a press")
        for press in 1...3 {
            // Contact bounce: three edges within the 20 ms window count as one press.
            try gpio.inject([(true, 0), (false, 2_000_000), (true, 4_000_000), (false, 150_000_000)], offset: Self.button)
            let read = client.waitForScan("pressed")
            #expect(read.match?["seq"] as? Int == press, "press \(press)")
            #expect(client.waitForScan("pressed", timeout: 1).match == nil, "one code for press \(press)")
        }
        #expect(daemon.waitForLog("trigger button pressed"))
        #expect(daemon.log.components(separatedBy: "trigger button pressed").count - 1 == 3)
    }

    @Test func linesThatCannotBeRequestedAreReportedAndTheDaemonRunsOn() throws {
        _ = try EmulatedGPIO(directory: bench.directory, busy: [27])
        try show("no feedback")
        let daemon = try start(
            lines: """
                gpio:
                  torch: { chip: gpiochip9, line: 17 }
                  buzzer: { type: active, chip: gpiochip0, line: 27 }
                  flash: { chip: gpiochip0, line: NO_SUCH_LINE }
                """)
        let client = try daemon.connect()
        #expect(client.waitForScan("no feedback").match != nil)
        #expect(daemon.log.contains("gpio torch (gpiochip9 line 17): cannot request: no such chip or line"))
        #expect(daemon.log.contains("gpio buzzer (gpiochip0 line 27): cannot request: busy: another program holds it"))
        #expect(daemon.log.contains("gpio flash (gpiochip0 line NO_SUCH_LINE): cannot request: no such chip or line"))
        #expect(daemon.stop() == 0)
    }

    @Test func sigtermInTheMiddleOfABeepLeavesEveryLineInactive() throws {
        try bench.camera.plug(["background": "200"])
        let daemon = try start("feedback:\n  beep: { beep: 3, flash: 3 }\n")
        let client = try daemon.connect()
        #expect(client.waitFor { $0["type"] as? String == "state" && $0["torch"] as? String == "on" }.match != nil)
        #expect(client.command("beep")?["ok"] as? Bool == true)
        // The buzzer and the flash are set one after the other: on a busy machine the flash's set
        // came after the check that followed the buzzer's.
        for line in [Self.buzzer, Self.flash] {
            #expect(gpio.waitFor { $0.offset == line && $0.event == "set" && $0.arguments == ["1"] && $0.time > 0 } != nil)
        }
        #expect(gpio.value(of: Self.buzzer) == 1 && gpio.value(of: Self.flash) == 1, "beeping")
        #expect(daemon.stop() == 0)
        for offset in [Self.torch, Self.buzzer, Self.flash] {
            #expect(gpio.value(of: offset) == 0, "line \(offset) inactive")
            #expect(gpio.entries.last { $0.offset == offset }?.event == "release", "line \(offset) released")
        }
        #expect(gpio.entries.last { $0.offset == Self.button }?.event == "release")
    }

    @Test func aNewPatternRestartsTheOnePlayingInsteadOfQueueing() throws {
        try bench.camera.plug(["background": "200"])
        let daemon = try start("feedback:\n  beep: { beep: 1, flash: 0 }\n  startup: { beep: 0.01, flash: 0 }\n")
        let client = try daemon.connect()
        #expect(gpio.waitFor { $0.offset == Self.buzzer && $0.event == "set" && $0.arguments == ["0"] } != nil, "startup beep over")
        #expect(client.command("beep")?["ok"] as? Bool == true)
        let first = try #require(
            gpio.waitFor { $0.offset == Self.buzzer && $0.event == "set" && $0.arguments == ["1"] && gpio.pulses(of: Self.buzzer).count == 1 })
        usleep(300_000)  // the restart point inside the pattern is what is under test
        #expect(client.command("beep")?["ok"] as? Bool == true)
        #expect(gpio.waitFor(timeout: 5) { _ in gpio.pulses(of: Self.buzzer).count == 2 } != nil)
        let pulse = try #require(gpio.pulses(of: Self.buzzer).last)
        let seconds = Double(pulse.off - first.time) / 1e9
        // Restarted: one continuous beep ending 1 s after the second command (not 2 s of queued beeps).
        #expect(seconds > 1.25 && seconds < 1.9, "\(seconds) s")
        usleep(1_200_000)
        #expect(gpio.pulses(of: Self.buzzer).count == 2, "nothing queued behind it")
    }

    @Test func linesAreReleasedWhenAnotherServiceFails() throws {
        try bench.camera.plug(["background": "200"])
        let first = try start()
        _ = try first.connect()
        // A second daemon on the same socket path fails to bind: its socket service throws.
        let otherDirectory = try TemporaryDirectory.shared.directory("gpio-other")
        let other = try EmulatedGPIO(directory: otherDirectory)
        let second = try DaemonProcess(
            config: Fixtures.config(device: bench.camera.node, extra: Self.lines), environment: other.environment(adding: bench.camera.environment),
            socketPath: first.socketPath)
        second.process.waitUntilExit()
        #expect(second.process.terminationStatus == 1)
        #expect(second.log.contains("is served by a running process"))
        for offset in [Self.torch, Self.buzzer, Self.flash, Self.button] {
            #expect(other.entries.contains { $0.offset == offset && $0.event.hasPrefix("request") }, "line \(offset) was requested")
            #expect(other.entries.last { $0.offset == offset }?.event == "release", "line \(offset) released")
            #expect(other.value(of: offset) == 0, "line \(offset) inactive")
        }
    }

    @Test func aPassiveBuzzerSoundsThroughItsPWMChannel() throws {
        // A PWM chip's sysfs files, as the kernel shows them once channel 0 is exported.
        let chip = bench.directory + "/pwmchip0"
        try FileManager.default.createDirectory(atPath: chip + "/pwm0", withIntermediateDirectories: true)
        for file in ["export", "pwm0/enable", "pwm0/period", "pwm0/duty_cycle"] {
            _ = FileManager.default.createFile(atPath: "\(chip)/\(file)", contents: Data("0".utf8))
        }
        func read(_ file: String) -> String { (try? String(contentsOfFile: "\(chip)/pwm0/\(file)", encoding: .utf8)) ?? "" }
        try bench.camera.plug(["background": "200"])
        let daemon = try start(
            "feedback:\n  good_read: { beep: 0.5, flash: 0 }\n  startup: { beep: 0.01, flash: 0 }\n",
            lines: """
                gpio:
                  buzzer: { type: passive, pwm_chip: \(chip), pwm_channel: 0, frequency: 2500 }
                """)
        let client = try daemon.connect()
        #expect(daemon.waitForLog("gpio buzzer ready"))
        #expect(read("period") == "400000" && read("duty_cycle") == "200000", "2500 Hz at half duty")
        try show("tone")
        #expect(client.waitForScan("tone").match != nil)
        var sounded = false
        var stopped = false
        let deadline = Date().addingTimeInterval(5)
        while !stopped && Date() < deadline {
            if read("enable") == "1" { sounded = true } else if sounded { stopped = true }
            usleep(5_000)
        }
        #expect(sounded && stopped, "the tone went on for the read and off again")

        let broken = try start(lines: "gpio:\n  buzzer: { type: passive, pwm_chip: \(bench.directory)/no-pwmchip }\n")
        #expect(broken.waitForLog("gpio buzzer (PWM \(bench.directory)/no-pwmchip channel 0): cannot export"))
        #expect(try broken.connect().waitForCamera("streaming") != nil, "the daemon runs on without a buzzer")
    }

    @Test func gpioTestListsTheChipsAndDrivesEachLine() throws {
        let config = bench.directory + "/wiring.conf"
        try Self.lines.write(toFile: config, atomically: true, encoding: .utf8)
        let tool = try Tool.start(Tool.scannerBinary, ["gpio-test", "--config", config, "--button-seconds", "20"], environment: gpio.environment())
        #expect(gpio.waitFor(timeout: 20) { $0.offset == Self.button && $0.event == "request-input" } != nil)
        try gpio.press(offset: Self.button)
        let result = tool.wait()
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        // CI runs this suite once per libgpiod generation and says which it expects.
        let generation = ProcessInfo.processInfo.environment["KSGPIO_GENERATION"] ?? "1"
        #expect(result.stdout.hasPrefix("libgpiod \(generation).x"), "\(result.stdout.prefix(40))")
        #expect(result.stdout.contains("/dev/gpiochip0: gpiochip0 [pinctrl-emu] 32 lines"))
        #expect(result.stdout.contains("line 17: GPIO17"))
        #expect(result.stdout.contains("torch (gpiochip0 line GPIO17): on for 1 s"))
        #expect(result.stdout.contains("trigger: pressed"))
        #expect(gpio.pulses(of: Self.buzzer).count == 3 && gpio.pulses(of: Self.flash).count == 3)
        for offset in [Self.torch, Self.buzzer, Self.flash] { #expect(gpio.value(of: offset) == 0) }

        let missing = try Tool.capture(
            Tool.scannerBinary, ["gpio-test", "--config", config], environment: ["LD_PRELOAD": EmulatedGPIO.library, "KSGPIO_DIR": "/nonexistent"])
        #expect(missing.status == 1)
        #expect(missing.stdout.contains("no GPIO chips"))
        #expect(missing.stdout.contains("FAIL torch (gpiochip0 line GPIO17): cannot request: no such chip or line"))
    }
}
