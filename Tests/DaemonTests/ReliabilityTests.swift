import Daemon
import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon under a stream of seeded hostile input while codes keep coming: control lines and
/// config reloads. It stays up, its memory stays bounded, and every read ends delivered or
/// dropped with a reason: detections = reads + duplicates + dropped + held.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReliabilityTests {
    @Test func tenThousandSeededControlLinesAndAThousandSeededConfigs() throws {
        let codes = (1...12).map { "fuzzed-\($0)" }
        let replay = try Fixtures.replayDirectory(codes: codes, blanks: 2)
        let notify = try NotifyListener()
        let daemon = try DaemonProcess(
            config: Fixtures.config(device: "replay:\(replay)"), environment: ["NOTIFY_SOCKET": notify.path])
        #expect(notify.waitFor("READY=1") != nil)
        let consumer = try daemon.connect()
        #expect(consumer.waitForScan("fuzzed-3").match != nil)
        let baseline = SocketHardeningTests.rssKiB(daemon.pid)
        var seqs: [Int] = []
        func drain() {
            while let event = consumer.event(timeout: 0.001) {
                if event["type"] as? String == "scan", let seq = event["seq"] as? Int { seqs.append(seq) }
            }
        }

        var generator = SeededGenerator(seed: 24)
        let fuzzer = try daemon.connect(subscribe: false)
        var sent = 0
        var replies = 0
        for _ in 0..<(10_000 / 50) {
            var batch: [UInt8] = []
            for _ in 0..<50 { batch += Self.controlLine(using: &generator) + [UInt8(ascii: "\n")] }
            fuzzer.send(batch)
            sent += 50
            // Every line gets exactly one reply; scans, state, frames and record-ends come between.
            // The consumer is read meanwhile: a client that stops reading is cut off, rightly.
            let deadline = Date().addingTimeInterval(20)
            while replies < sent, Date() < deadline {
                // Counted by bytes: Foundation's JSONSerialization and String.contains stumble on some
                // of the garbage the error replies echo.
                if let line = fuzzer.line(timeout: 0.05), line.utf8.firstRange(of: Self.replyMark) != nil { replies += 1 }
                drain()
            }
        }
        #expect(replies == sent, "\(replies) replies to \(sent) lines")
        #expect(daemon.process.isRunning)

        let good = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        var reloads = 0
        for _ in 0..<1000 {
            try Data(Self.config(from: good, using: &generator)).write(to: URL(fileURLWithPath: daemon.configPath))
            daemon.signal(SIGHUP)
            if notify.waitFor("READY=1", timeout: 20) != nil { reloads += 1 }
            drain()
        }
        #expect(reloads == 1000)
        #expect(daemon.process.isRunning)

        // Back to the good config and scanning: reads flow to the consumer again.
        try good.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(notify.waitFor("READY=1", timeout: 20) != nil)
        #expect(consumer.command("resume")?["ok"] as? Bool == true)
        let before = seqs.count
        let deadline = Date().addingTimeInterval(20)
        while seqs.count < before + 5, Date() < deadline {
            if let event = consumer.event(timeout: 1), event["type"] as? String == "scan", let seq = event["seq"] as? Int { seqs.append(seq) }
        }
        #expect(seqs.count >= before + 5, "reads flow again")
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "in order, each once")

        // Settled and paused, every read is accounted for.
        #expect(consumer.command("pause")?["ok"] as? Bool == true)
        let (balanced, counters, held) = consumer.waitForBalancedCounters(timeout: 10)
        #expect(balanced, "\(counters), held \(held)")
        let growth = SocketHardeningTests.rssKiB(daemon.pid) - baseline
        #expect(growth < 12 * 1024, "RSS grew by \(growth) KiB")
        #expect(daemon.stop() == 0)
    }

    static let replyMark = Array(#""type":"reply""#.utf8)

    /// One control line: a command the daemon knows (with odd arguments), random bytes, or an
    /// oversized line.
    static func controlLine(using generator: inout SeededGenerator) -> [UInt8] {
        let commands = [
            "status", "metrics", "pause", "resume", "torch on", "torch off", "torch auto", "torch", "beep", "trigger",
            "subscribe", "unsubscribe", "record 0.000001", "record 1e-300", "record 0.02", "record -1", "record nan", "record 3601",
            "record", "snapshot now", "STATUS", "  pause\r", "resume\t", "torch\tON", "status extra",
        ]
        switch Int.random(in: 0..<100, using: &generator) {
        case 0: return Array("snapshot".utf8)
        case 1...45: return Array(commands.randomElement(using: &generator)!.utf8)
        case 46...50: return (0..<Int.random(in: 257...3000, using: &generator)).map { _ in UInt8.random(in: 32...126, using: &generator) }
        default:
            return (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                .filter { $0 != UInt8(ascii: "\n") }
        }
    }

    /// A config: the good one with sections added (valid or not), or its bytes mutated.
    static func config(from good: String, using generator: inout SeededGenerator) -> [UInt8] {
        let sections = [
            "camera:\n  fps: 15\n", "camera:\n  fps: lots\n", "camera:\n  width: -1\n", "viewport: { square: 0.5 }\n",
            "viewport: { rect: [0, 0, 2, 1] }\n", "decoder:\n  engine: both\n", "decoder:\n  engine: nonsense\n",
            "decoder:\n  symbologies: [qr, ean13]\n", "decoder:\n  symbologies: []\n", "tracking:\n  absence: 0.2\n",
            "gating:\n  threshold: 300\n", "socket:\n  hold_count: 3\n", "scanner:\n  mode: trigger\n", "scanner:\n  torch: on\n",
            "feedback:\n  held: { beep: 9 }\n", "outputs: [ { type: serial } ]\n", "metrics:\n  interval: 0\n", "unknown: 1\n",
            "camera: [\n", "\t- tab\n", "a: &x [1, *x]\n", "viewport: " + String(repeating: "[", count: 5000) + "\n",
            "decoder:\n  lengths: { qr: { min: 9, max: 2 } }\n", "socket:\n  control_group: \"\"\n  images: maybe\n",
        ]
        var text = Array(good.utf8)
        if Bool.random(using: &generator) {
            for _ in 0..<Int.random(in: 1...3, using: &generator) { text += Array(sections.randomElement(using: &generator)!.utf8) }
        } else {
            for _ in 0..<Int.random(in: 1...8, using: &generator) where !text.isEmpty {
                text[Int.random(in: 0..<text.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
        }
        return text
    }
}
