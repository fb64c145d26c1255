import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM through the real binary (issue #32): the daemon is gone within 2 s whatever its outputs
/// and clients are doing, and says so cleanly.
@Suite(.serialized) struct ShutdownTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("shutdown") }

    /// The outputs' threads are inside device calls that do not end soon: two keyboard wedges
    /// typing a long read into hosts that take a key a second, and a serial port whose far end
    /// stopped reading (each write waits for room). A client is connected and never reads.
    @Test func sigtermEndsTheDaemonWithinTwoSecondsWhileOutputsAreStuckInDeviceCalls() throws {
        let keyboards = try (0..<2).map { index in
            let gadget = try PseudoTerminal()
            try gadget.link("\(bench.directory)/hidg\(index)")
            return gadget
        }
        let serial = try PseudoTerminal()
        try serial.link("\(bench.directory)/ttyGS0")
        serial.stall()
        defer {
            for terminal in keyboards + [serial] { terminal.close() }
        }
        let text = String(repeating: "k", count: 30)
        try bench.show(text)
        let daemon = try bench.start(
            extra: """
                outputs:
                  - { type: keyboard, backend: hid-gadget, device: \(bench.directory)/hidg0, key_delay: 1 }
                  - { type: keyboard, backend: hid-gadget, device: \(bench.directory)/hidg1, key_delay: 1 }
                  - { type: serial, device: \(bench.directory)/ttyGS0 }
                """)
        let idle = try daemon.connect()
        let control = try daemon.connectControl()

        // Each keyboard has typed its first key, and now sleeps a second before each of the rest.
        for gadget in keyboards {
            #expect(gadget.read(atLeast: 16, timeout: 20).count >= 16, "the keyboard started typing: \(daemon.log)")
        }
        // The serial output's write found no room for its whole wait, and waits again.
        var serialDetail: String?
        let deadline = Date().addingTimeInterval(10)
        repeat {
            let outputs = (control.command("status", timeout: 2)?["status"] as? [String: Any])?["outputs"] as? [[String: Any]]
            serialDetail = outputs?.first { ($0["name"] as? String)?.hasPrefix("serial") == true }?["detail"] as? String
        } while serialDetail?.contains("flow control") != true && Date() < deadline
        #expect(serialDetail?.contains("flow control") == true, "the serial write blocks: \(serialDetail ?? "no detail")")

        daemon.signal(SIGTERM)
        try #require(Fixtures.wait(seconds: 2) { !daemon.process.isRunning }, "SIGTERM ends the daemon within 2 s")
        #expect(daemon.process.terminationStatus == 0, "a clean exit: \(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket removed")
        #expect(!daemon.log.contains("Cannot schedule tasks"), "no answer reached the stopped event loop: \(daemon.log)")
        _ = idle
    }

    /// With nothing stuck, the bound is never reached: every part stops by itself, in order, and no
    /// thread is left behind.
    @Test func withNothingStuckEveryPartStopsByItselfAndNoThreadIsLeftBehind() throws {
        let serial = try PseudoTerminal()
        try serial.link("\(bench.directory)/ttyUSB0")
        defer { serial.close() }
        try bench.show("in order")
        let daemon = try bench.start(extra: "outputs:\n  - { type: serial, device: \(bench.directory)/ttyUSB0, terminator: lf }\n")
        let client = try daemon.connect()
        #expect(client.waitForScan("in order").match != nil)
        #expect(serial.read(atLeast: 9) == Array("in order\n".utf8))
        daemon.signal(SIGTERM)
        try #require(Fixtures.wait(seconds: 2) { !daemon.process.isRunning }, "SIGTERM ends the daemon within 2 s")
        #expect(daemon.process.terminationStatus == 0, "a clean exit: \(daemon.log)")
        let log = daemon.log
        #expect(!log.contains("left behind") && !log.contains("took longer than allowed"), "nothing cut short: \(log)")
    }
}
