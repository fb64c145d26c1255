import Codes
import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Serial and keyboard-wedge outputs of the real daemon: a pty stands in for the serial line and
/// the HID gadget, and libuinputemu for /dev/uinput.
@Suite(.serialized) struct OutputTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("outputs") }

    func show(_ text: String) throws { try bench.show(text, with: ["background": "200"]) }

    func start(outputs: String, extra: String = "", environment: [String: String] = [:]) throws -> DaemonProcess {
        try bench.camera.plug(["background": "200"])
        return try bench.start(extra: "outputs:\n" + outputs + "\n" + extra, environment: environment)
    }

    /// What the daemon needs in its environment for libuinputemu to stand in for /dev/uinput at
    /// `device` (it records the keyboard's events in `device`.events and its ioctls in `device`.ioctl).
    static func uinput(device: String) -> [String: String] {
        ["LD_PRELOAD": EmulatedCamera.library.replacingOccurrences(of: "libv4l2emu", with: "libuinputemu"), "KSUINPUT_DEVICE": device]
    }

    // MARK: Serial

    @Test func serialFramesEachReadAndHoldsReadsAcrossAnUnplug() throws {
        let link = bench.directory + "/ttyUSB-link"
        var line = try PseudoTerminal()
        try line.link(link)
        let daemon = try start(
            outputs: """
                  - type: serial
                    device: \(link)
                    baud: 115200
                    prefix: "<STX>"
                    suffix: "\\x03"
                    terminator: crlf
                    aim: true
                """)
        let client = try daemon.connect()
        try show("serial one")
        #expect(client.waitForScan("serial one").match != nil)
        let expected: [UInt8] = [0x02] + Array("]Q1serial one".utf8) + [0x03, 0x0D, 0x0A]
        #expect(line.read(atLeast: expected.count) == expected)

        // Unplug: the line hangs up. Reads made meanwhile are held and come in order after the replug.
        line.close()
        let held = ["while away 1", "while away 2", "while away 3"]
        for text in held {
            try show(text)
            #expect(client.waitForScan(text).match != nil)
        }
        #expect(daemon.waitForLog("holding reads until it is back"))
        line = try PseudoTerminal()
        try line.link(link)
        let framed: [UInt8] = held.flatMap { text -> [UInt8] in [0x02] + Array("]Q1\(text)".utf8) + [0x03, 0x0D, 0x0A] }
        let received = line.read(atLeast: framed.count)
        #expect(String(decoding: received, as: UTF8.self) == String(decoding: framed, as: UTF8.self))
        // The output counts a read once its write returned, which can come after the bytes arrive.
        var output: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(10)
        repeat {
            let status = client.command("status")?["status"] as? [String: Any]
            output = (status?["outputs"] as? [[String: Any]])?.first ?? [:]
        } while output["sent"] as? Int != 4 && Date() < deadline
        #expect(output["sent"] as? Int == 4)
        #expect(output["state"] as? String == "ok")
        #expect((output["failed"] as? [String: Int] ?? [:]).isEmpty, "no read lost")
        line.close()
    }

    @Test func aFailedOutputNeverBlocksTheSocket() throws {
        // No such serial device: its reads are held (and expire), the socket gets every read at once.
        let daemon = try start(outputs: "  - { type: serial, device: \(bench.directory)/no-such-tty, hold_count: 2, hold_seconds: 1 }\n")
        let client = try daemon.connect()
        for index in 1...4 {
            try show("socket still \(index)")
            #expect(client.waitForScan("socket still \(index)").match != nil)
        }
        #expect(daemon.waitForLog("cannot open \(bench.directory)/no-such-tty"))
        var failed: [String: Int] = [:]
        let deadline = Date().addingTimeInterval(10)
        while (failed["queue-full"] ?? 0) + (failed["hold-expired"] ?? 0) < 4 && Date() < deadline {
            let status = client.command("status")?["status"] as? [String: Any]
            failed = ((status?["outputs"] as? [[String: Any]])?.first?["failed"] as? [String: Int]) ?? [:]
        }
        #expect((failed["queue-full"] ?? 0) + (failed["hold-expired"] ?? 0) == 4, "every held read is accounted for: \(failed)")
        let metrics = client.command("metrics")?["metrics"] as? String ?? ""
        #expect(metrics.contains("kiosk_scanner_output_up{output=\"serial \(bench.directory)/no-such-tty\"} 0"))
    }

    @Test func theGoodReadBeepWaitsForAnOutputToAcceptTheRead() throws {
        let gpio = try EmulatedGPIO(directory: bench.directory)
        let link = bench.directory + "/ttyACM-link"
        let line = try PseudoTerminal()
        try line.link(link)
        // Nobody on the socket and no hold queue: only the serial line can accept reads.
        let feedback =
            "feedback:\n  good_read: { beep: 0.05, flash: 0 }\n  error: { beep: 0.25, flash: 0, repeat: 1 }\n  startup: { beep: 0.01, flash: 0, repeat: 1 }\n"
        let lines = "gpio:\n  buzzer: { chip: gpiochip0, line: 27 }\n"
        let daemon = try start(
            outputs: "  - { type: serial, device: \(link) }\n", extra: "socket:\n  hold_count: 0\n" + lines + feedback,
            environment: gpio.environment())
        #expect(daemon.waitForLog("open (9600 8N1"))
        try show("accepted")
        #expect(line.read(atLeast: 10) == Array("accepted\r\n".utf8))
        #expect(gpio.waitFor { _ in gpio.pulses(of: 27).count == 2 } != nil, "startup, then the good-read beep")
        let good = try #require(gpio.pulses(of: 27).last)
        // The error pattern's beep is 0.3 s and comes twice; the count above tells them apart too.
        #expect(Double(good.off - good.on) / 1e6 < 300, "the good-read pattern, not the error one")

        // The line hangs up: a read waits in the serial queue, so nothing has accepted it yet: no beep.
        line.close()
        try show("not yet")
        #expect(daemon.waitForLog("read dropped: no-client"))
        #expect(daemon.waitForLog("holding reads until it is back"))
        #expect(gpio.pulses(of: 27).count == 2, "no beep before an output accepts")
        _ = daemon.stop()
        // At shutdown the held read is given up: it reached no output.
        #expect(daemon.log.contains("reached no output"))
    }

    // MARK: USB HID POS

    @Test func hidPOSSendsEachReadWholeWithItsAIMIdentifierAndTheHostPausesAndResumes() throws {
        let link = bench.directory + "/hidg-pos"
        let gadget = try PseudoTerminal()
        try gadget.link(link)
        let descriptor = try HIDPOSHost.descriptor()
        let daemon = try start(outputs: "  - { type: hid-pos, device: \(link) }\n")
        let client = try daemon.connect()
        #expect(daemon.waitForLog("hid-pos \(link): ready"))

        // A short code, one report; then 150 bytes of every value, three chained reports.
        try show("KS-POS-7")
        #expect(client.waitForScan("KS-POS-7").match != nil)
        let binary = (0..<150).map { UInt8(($0 * 37 + 11) % 256) }
        let frame = Barcodes.centred(try ImageFile.read(path: Barcodes.qr(bytes: binary, moduleSize: 3)), in: Size(width: 640, height: 480))
        try bench.show(frame, with: ["background": "200"])
        #expect(client.waitFor { $0["type"] as? String == "scan" && $0["content"] as? String == "binary" }.match != nil)
        let reports = gadget.read(atLeast: 4 * 64)
        #expect(
            try HIDPOSHost.codes(in: reports, descriptor: descriptor) == [
                "aim=]Q1 hex=\(HIDPOSHost.hex(Array("KS-POS-7".utf8)))", "aim=]Q1 hex=\(HIDPOSHost.hex(binary))",
            ])

        // The host's Trigger Report: Prevent Read pauses scanning, Initiate Read resumes it.
        gadget.write(try HIDPOSHost.triggerReport("prevent", descriptor: descriptor))
        #expect(client.waitFor { $0["type"] as? String == "state" && $0["paused"] as? Bool == true }.match != nil)
        gadget.write(try HIDPOSHost.triggerReport("initiate", descriptor: descriptor))
        #expect(client.waitFor { $0["type"] as? String == "state" && $0["paused"] as? Bool == false }.match != nil)
        #expect(daemon.waitForLog("the host asked to prevent reads (pause)"))
        gadget.close()
    }

    // MARK: USB HID gadget

    /// Boot-keyboard reports: modifiers, reserved, key.
    static func report(_ modifiers: UInt8, _ usage: UInt8) -> [UInt8] { [modifiers, 0, usage, 0, 0, 0, 0, 0] }
    static let release = [UInt8](repeating: 0, count: 8)

    @Test func hidGadgetTypesEachKeyAsAReportAndAReleaseOnTheHostLayout() throws {
        let link = bench.directory + "/hidg0"
        let gadget = try PseudoTerminal()
        try gadget.link(link)
        let daemon = try start(outputs: "  - { type: keyboard, backend: hid-gadget, device: \(link), layout: de, key_delay: 0 }\n")
        let client = try daemon.connect()
        try show("Zy@")
        #expect(client.waitForScan("Zy@").match != nil)
        // German layout: Z is Shift + the key US boards label Y, y is the Z key, @ is AltGr + Q; then Enter.
        let expected = [
            Self.report(0x02, 0x1C), Self.release, Self.report(0x00, 0x1D), Self.release, Self.report(0x40, 0x14), Self.release,
            Self.report(0x00, 0x28), Self.release,
        ].flatMap { $0 }
        #expect(gadget.read(atLeast: expected.count) == expected)

        // The host turns Caps Lock on (LED output report): letters are sent with Shift inverted.
        gadget.write([0x02])
        try show("Caps")
        #expect(client.waitForScan("Caps").match != nil)
        let caps = [
            Self.report(0x00, 0x06), Self.release, Self.report(0x02, 0x04), Self.release, Self.report(0x02, 0x13), Self.release,
            Self.report(0x02, 0x16), Self.release, Self.report(0x00, 0x28), Self.release,
        ].flatMap { $0 }
        #expect(gadget.read(atLeast: caps.count) == caps)
        gadget.close()
    }

    /// The two outputs on a HID gadget function.
    enum GadgetOutput: String, CaseIterable { case keyboard, hidPOS }

    @Test(arguments: GadgetOutput.allCases)
    func aStalledHostGivesABoundedQueueAndAnErrorStateWithoutHanging(output kind: GadgetOutput) throws {
        let link = bench.directory + "/hidg-stalled-\(kind)"
        let gadget = try PseudoTerminal()
        try gadget.link(link)
        gadget.stall()
        let daemon = try start(
            outputs: kind == .keyboard
                ? "  - { type: keyboard, backend: hid-gadget, device: \(link), hold_count: 2, key_delay: 0 }\n"
                : "  - { type: hid-pos, device: \(link), hold_count: 2 }\n")
        let client = try daemon.connect()
        for index in 1...5 {
            try show("stalled \(index)")
            #expect(client.waitForScan("stalled \(index)").match != nil, "capture and the socket go on")
        }
        var output: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(10)
        repeat {
            let status = client.command("status", timeout: 2)?["status"] as? [String: Any]
            output = (status?["outputs"] as? [[String: Any]])?.first ?? [:]
            // The queue fills at once; the host counts as not polling only once a report has waited too long.
        } while (((output["failed"] as? [String: Int])?["queue-full"] ?? 0) < 3 || output["state"] as? String != "error") && Date() < deadline
        #expect(output["state"] as? String == "error")
        #expect((output["detail"] as? String)?.contains("not polling") == true, "\(output)")
        #expect((output["failed"] as? [String: Int])?["queue-full"] == 3, "5 reads, 2 held: \(output)")
        #expect(output["queued"] as? Int == 2)
        // The host polls again: the held reads arrive, in order.
        gadget.drain()
        switch kind {
        case .keyboard:
            let wanted = 2 * ("stalled 4".count + 1) * 16
            #expect(gadget.read(atLeast: wanted).count == wanted, "the two held reads, each key a report and a release")
        case .hidPOS:
            let reports = gadget.read(atLeast: 2 * 64)
            let codes = try HIDPOSHost.codes(in: reports, descriptor: try HIDPOSHost.descriptor())
            #expect(codes == ["stalled 4", "stalled 5"].map { "aim=]Q1 hex=\(HIDPOSHost.hex(Array($0.utf8)))" }, "one report each")
        }
        gadget.close()
    }

    // MARK: uinput

    @Test func uinputCreatesOneKeyboardAndTypesWithShiftAndSync() throws {
        let device = bench.directory + "/uinput"
        let daemon = try start(
            outputs: "  - { type: keyboard, backend: uinput, device: \(device), key_delay: 0 }\n",
            environment: Self.uinput(device: device))
        let client = try daemon.connect()
        for text in ["Ab1", "second"] {
            try show(text)
            #expect(client.waitForScan(text).match != nil)
        }
        var events: [(type: UInt16, code: UInt16, value: Int32)] = []
        let deadline = Date().addingTimeInterval(10)
        // "Ab1" + Enter and "second" + Enter: each key a press and a release, each with its SYN
        // (4 events a key); Shift around A counts as a second key.
        let wanted = (2 + 1 + 1 + 1 + 6 + 1) * 4
        while events.count < wanted && Date() < deadline {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: device + ".events"))) ?? Data()
            events = stride(from: 0, to: data.count - 23, by: 24).map { offset in
                (
                    data.subdata(in: offset + 16..<offset + 18).withUnsafeBytes { $0.load(as: UInt16.self) },
                    data.subdata(in: offset + 18..<offset + 20).withUnsafeBytes { $0.load(as: UInt16.self) },
                    data.subdata(in: offset + 20..<offset + 24).withUnsafeBytes { $0.load(as: Int32.self) }
                )
            }
            usleep(20_000)
        }
        let keys = events.filter { $0.type == 1 }.map { "\($0.code):\($0.value)" }
        // LEFTSHIFT(42) down, A(30) down, A up, LEFTSHIFT up; b(48); 1(2); Enter(28).
        #expect(Array(keys.prefix(12)) == ["42:1", "30:1", "30:0", "42:0", "48:1", "48:0", "2:1", "2:0", "28:1", "28:0", "31:1", "31:0"])
        #expect(
            zip(events, events.dropFirst()).allSatisfy { $0.0.type != 1 || ($0.1.type == 0 && $0.1.code == 0) }, "every key event is followed by SYN_REPORT")
        let ioctls = (try? String(contentsOfFile: device + ".ioctl", encoding: .utf8)) ?? ""
        #expect(ioctls.components(separatedBy: "UI_DEV_CREATE").count - 1 == 1, "created once, for both reads")
        #expect(ioctls.contains("UI_SET_EVBIT 1") && ioctls.contains("UI_DEV_SETUP bus=6 vendor=1209 product=4b53 name=kiosk-scanner keyboard"))
        let created = try #require(ioctls.range(of: "UI_DEV_CREATE"))
        #expect(!ioctls[created.upperBound...].contains("UI_SET_KEYBIT"), "keys declared before the device is created")
        #expect(daemon.stop() == 0)
        #expect(((try? String(contentsOfFile: device + ".ioctl", encoding: .utf8)) ?? "").contains("UI_DEV_DESTROY"))
    }
}
