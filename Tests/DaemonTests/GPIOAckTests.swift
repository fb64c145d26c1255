import Foundation
import ScannerTestSupport
import Testing

/// What the cashier hears when the POS acks, stops acking or refuses a read (docs/socket-protocol.md:
/// acknowledged delivery), through the emulated buzzer. Patterns are told apart by their number of
/// beeps: startup 3, good read 1, held 2, dropped 4, rejected 5, not-found 6.
extension GPIOTests {
    static let ackPatterns = """
        feedback:
          beep_after: acknowledged
          good_read: { beep: 0.01, flash: 0, repeat: 1 }
          held: { beep: 0.01, flash: 0, repeat: 2, gap: 0.01 }
          dropped: { beep: 0.01, flash: 0, repeat: 4, gap: 0.01 }
          rejected: { beep: 0.01, flash: 0, repeat: 5, gap: 0.01 }
          startup: { beep: 0.01, flash: 0, repeat: 3, gap: 0.01 }
          named:
            not-found: { beep: 0.01, flash: 0, repeat: 6, gap: 0.01 }
        socket:
          acknowledge: required
          ack_timeout: 0.2
          hold_seconds: 0.6
        """

    func beeps(_ count: Int) -> Bool { gpio.waitFor { _ in gpio.pulses(of: Self.buzzer).count == count } != nil }

    /// The daemon on `patterns` and a POS connected to it, once the startup pattern has sounded.
    func startWithPOS(_ patterns: String = GPIOTests.ackPatterns) throws -> (DaemonProcess, SocketClient) {
        try bench.camera.plug(["background": "200"])
        let daemon = try start(patterns)
        #expect(beeps(3), "the startup pattern")
        return (daemon, try daemon.connect())
    }

    @Test func aPOSThatStopsAckingHearsHeldThenDroppedAndTheReadIsCounted() throws {
        let (daemon, pos) = try startWithPOS()
        try show("acked")
        let first = try #require(pos.waitForScan("acked").match?["seq"] as? Int)
        #expect(pos.command("ack \(first)")?["ok"] as? Bool == true)
        #expect(beeps(3 + 1), "the good-read sounds on the ack")
        // The POS hangs: it reads, but acks nothing more.
        try show("never acked")
        #expect(pos.waitForScan("never acked").match != nil)
        #expect(daemon.waitForLog("not acked within"))
        #expect(daemon.waitForLog("read dropped: hold-expired"))
        #expect(beeps(3 + 1 + 2 + 4), "held, then dropped: \(gpio.pulses(of: Self.buzzer).count) beeps")
        let counted = pos.waitForBalancedCounters(timeout: 10)
        #expect(counted.balanced, "\(counted.counters)")
        #expect((counted.counters["dropped"] as? [String: Int])?["hold-expired"] == 1)
        #expect(counted.counters["reads"] as? Int == 1)
    }

    @Test func aNakSoundsTheRejectedOrTheNamedPatternAndIsCountedAsRejected() throws {
        let (daemon, pos) = try startWithPOS(Self.ackPatterns.replacingOccurrences(of: "ack_timeout: 0.2", with: "ack_timeout: 30"))
        try show("no such item")
        let first = try #require(pos.waitForScan("no such item").match?["seq"] as? Int)
        #expect(pos.command("nak \(first) not-found")?["ok"] as? Bool == true)
        #expect(beeps(3 + 6), "the pattern the POS named")
        try show("refused")
        #expect(pos.waitForScan("refused").match != nil)
        #expect(pos.command("nak")?["ok"] as? Bool == true)
        #expect(beeps(3 + 6 + 5), "the rejected pattern")
        let counters = try #require((pos.command("status")?["status"] as? [String: Any])?["counters"] as? [String: Any])
        #expect(counters["rejected"] as? Int == 2)
        #expect(counters["reads"] as? Int == 0, "a refused read is not delivered")
        #expect(daemon.stop() == 0)
        #expect(gpio.pulses(of: Self.buzzer).count == 3 + 6 + 5, "no good-read, held or dropped pattern")
    }
}
