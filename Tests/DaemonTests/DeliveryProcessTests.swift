import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The delivery rules through the real binary and real sockets, where a process is what is tested:
/// a consumer that never reads its socket, a POS that acks, a rule that would backtrack, SIGTERM.
@Suite(.serialized) struct DeliveryProcessTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("delivery") }

    @Test func aSubscriberThatNeverReadsTakesNothingFromThePOSThatComesBack() throws {
        let daemon = try bench.start()
        let hostile = try daemon.connect()
        let codes = (1...5).map { "while away \($0)" }
        try bench.show(codes, to: daemon)
        #expect(daemon.waitForLog("read 5 not read within"), "unread past read_timeout: held again")
        #expect(daemon.log.contains("client 1 has not read read 1"), "the subscriber is marked as not reading")
        let pos = try daemon.connect()
        let seqs = (1...5).compactMap { _ in pos.waitFor { $0["type"] as? String == "scan" }.match?["seq"] as? Int }
        #expect(seqs == [1, 2, 3, 4, 5], "every read, in order")
        let counted = pos.waitForBalancedCounters(timeout: 10)
        #expect(counted.balanced, "\(counted.counters)")
        #expect(counted.counters["reads"] as? Int == 5)
        _ = hostile
    }

    @Test func withAcksTheAckingPOSGetsEveryReadInOrderOnceBesideANeverReadingOne() throws {
        let daemon = try bench.start(extra: "socket:\n  acknowledge: required\n")
        let hostile = try daemon.connect()
        let pos = try daemon.connect()
        var seqs: [Int] = []
        for index in 1...6 {
            try bench.show("acked \(index)")
            let scan = pos.waitFor { $0["type"] as? String == "scan" }.match
            if let seq = scan?["seq"] as? Int {
                seqs.append(seq)
                pos.send("ack \(seq)")
            }
            #expect(scan?["text"] as? String == "acked \(index)")
        }
        // Nothing more arrives: each read came once.
        #expect(pos.waitFor(timeout: 1) { $0["type"] as? String == "scan" }.match == nil)
        #expect(seqs == Array(1...6))
        let status = try #require(pos.command("status")?["status"] as? [String: Any])
        #expect((status["counters"] as? [String: Any])?["reads"] as? Int == 6, "delivered on the POS's acks")
        _ = hostile
    }

    @Test func afterAMixedRunEveryDetectionIsAReadADuplicateADropAHoldOrARejection() throws {
        let daemon = try bench.start(
            extra: """
                socket:
                  acknowledge: required
                  ack_timeout: 0.3
                  hold_seconds: 3
                  rules:
                    - when: { prefix: "DROP" }
                      do: [drop]
                """)
        let pos = try daemon.connect()
        try bench.show("acked")
        let acked = try #require(pos.waitForScan("acked").match?["seq"] as? Int)
        #expect(pos.command("ack \(acked)")?["ok"] as? Bool == true)
        // The same code, moved in the frame: decoded again, and a duplicate of the read it made.
        let moved = Barcodes.compose(
            size: Size(width: 640, height: 480), background: 220,
            placing: [(try ImageFile.read(path: Barcodes.qr("acked", moduleSize: 3)), Point(x: 250, y: 170))])
        let movedFile = bench.directory + "/acked-moved.pgm"
        try Fixtures.pgm(moved).write(to: URL(fileURLWithPath: movedFile))
        try bench.camera.plug(["frame": movedFile])
        #expect(
            Fixtures.wait(seconds: 10) {
                (pos.command("status")?["status"] as? [String: Any]).flatMap { $0["counters"] as? [String: Any] }?["duplicates"] as? Int ?? 0 > 0
            })
        try bench.show("refused")
        let refused = try #require(pos.waitForScan("refused").match?["seq"] as? Int)
        #expect(pos.command("nak \(refused) not-found")?["ok"] as? Bool == true)
        try bench.show("DROP by rule")
        #expect(daemon.waitForLog("read sent as nothing by a formatting rule"))
        // Never acked: held again after ack_timeout, dropped after hold_seconds.
        try bench.show("never acked")
        #expect(pos.waitForScan("never acked").match != nil)
        #expect(daemon.waitForLog("read dropped: hold-expired"))
        // The POS let a read time out: the next one waits in the hold queue.
        try bench.show("held")
        #expect(daemon.waitForLog("read \(refused + 3) QR-Code"))
        let counted = pos.waitForBalancedCounters(timeout: 10)
        #expect(counted.balanced, "\(counted.counters)")
        #expect(counted.counters["reads"] as? Int == 1)
        #expect(counted.counters["rejected"] as? Int == 1)
        #expect(counted.counters["dropped"] as? [String: Int] == ["rule": 1, "hold-expired": 1])
        #expect(counted.held == 1)
        #expect(counted.counters["duplicates"] as? Int ?? 0 > 0)
    }

    @Test func theSocketPagesPythonPOSClientAcksAndNaks() throws {
        let script = try #require(try Markdown.codeBlocks("python", in: "docs/socket-protocol.md", after: "A POS client that acks").first)
        #expect(script.split(separator: "\n").count <= 20)
        let daemon = try bench.start(extra: "socket:\n  acknowledge: required\n")
        let status = try daemon.connect()  // the socket is there
        let path = bench.directory + "/pos-client.py"
        try script.replacingOccurrences(of: "/run/kiosk-scanner/scan.sock", with: daemon.socketPath).write(
            toFile: path, atomically: true, encoding: .utf8)
        let client = ChildProcess()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        client.arguments = [path]
        let output = Pipe()
        client.standardOutput = output
        try client.run()
        let stop = {
            client.terminate()
            client.waitUntilExit()
        }
        defer { if client.isRunning { stop() } }
        try bench.show(["4006381333931", "no such item"], to: daemon)
        #expect(daemon.waitForLog("read 2 rejected by the POS: not-found"))
        let counters = status.waitForBalancedCounters(timeout: 10).counters
        #expect(counters["reads"] as? Int == 1, "the digits are on the bill: acked")
        #expect(counters["rejected"] as? Int == 1, "the text is not: naked")
        stop()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == "1 4006381333931\n2 no such item\n")
    }

    @Test func aBacktrackingRuleNeitherFreezesStatusNorHoldsUpSIGTERM() throws {
        // The 40 a's (in a QR code: a Code 128 of 40 characters is wider than the viewport).
        try bench.show(String(repeating: "a", count: 40))
        let link = bench.directory + "/ttyUSB-rule"
        let serial = try PseudoTerminal()
        try serial.link(link)
        let daemon = try bench.start(
            extra: """
                socket:
                  rules:
                    - when: { regex: "(a|aa)+b" }
                      do: [drop]
                outputs:
                  - type: serial
                    device: \(link)
                    terminator: lf
                    rules:
                      - when: { regex: "(a|aa)+b" }
                        do: [drop]
                """)
        let client = try daemon.connect()
        let scan = client.waitFor(timeout: 20) { $0["type"] as? String == "scan" }.match
        let text = String(repeating: "a", count: 40)
        #expect(scan?["text"] as? String == text, "no match: the read goes out")
        #expect(serial.read(atLeast: 41) == Array((text + "\n").utf8), "and the serial output is not wedged")
        // Bounds, not timings: a frozen loop would never answer, nor stop.
        #expect(client.command("status", timeout: 1)?["ok"] as? Bool == true)
        daemon.signal(SIGTERM)
        #expect(Fixtures.wait(seconds: 2) { !daemon.process.isRunning }, "SIGTERM ends the daemon")
    }
}
