import Codes
import Daemon
import Foundation
import ScannerProtocol
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real daemon on a replayed directory: what a POS application sees on the socket.
@Suite(.serialized) struct SocketTests {
    @Test func replayedCodesArriveAsScanEventsAfterTheState() throws {
        let replay = try Fixtures.replayDirectory(codes: ["first", "second"], blanks: 3)
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"))
        let client = try daemon.connect()
        let mode = (try FileManager.default.attributesOfItem(atPath: daemon.socketPath)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o660, "socket mode \(String(mode, radix: 8))")
        let state = try #require(client.event())
        #expect(state["type"] as? String == "state")
        let first = try #require(client.waitForScan("first").match)
        #expect(first["symbology"] as? String == "QR-Code")
        #expect(first["aim"] as? String == "]Q1")
        #expect(first["bytes"] as? String == Data("first".utf8).base64EncodedString())
        #expect((first["corners"] as? [[String: Int]])?.count == 4)
        #expect((first["frame"] as? [String: Int]) == ["width": 320, "height": 240])
        #expect(first["content"] as? String == "plain")
        let second = try #require(client.waitForScan("second").match)
        #expect((second["seq"] as? Int ?? 0) > (first["seq"] as? Int ?? 0))
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "socket file removed at exit")
    }

    @Test func socketModeAndGroupComeFromTheConfig() throws {
        let group = try #require(getgrnam("nogroup"), "Debian's nogroup").pointee.gr_gid
        let replay = try Fixtures.replayDirectory(codes: ["group"])
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  mode: \"0600\"\n  group: nogroup\n"))
        _ = try daemon.connect()
        var status = stat()
        #expect(stat(daemon.socketPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(status.st_gid == group)

        // A group that cannot be applied is an error in the log; the socket still serves.
        let other = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  group: no-such-group-kiosk\n"))
        #expect(try other.connect().command("status")?["ok"] as? Bool == true)
        #expect(other.log.contains("socket.group 'no-such-group-kiosk' does not exist"))
    }

    @Test func plainModeSendsOneCodePerLine() throws {
        let replay = try Fixtures.replayDirectory(codes: ["plain one"])
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  format: plain\n"))
        let client = try daemon.connect()
        #expect(client.line() == "plain one")
        client.send("status")
        #expect(client.line()?.hasPrefix("ok camera=streaming") == true)
        client.send("bogus")
        #expect(client.line()?.hasPrefix("error: unknown command 'bogus'") == true)
    }

    @Test func fiftyClientsGetEveryReadInOrderWhileOneStalledClientIsCutOff() throws {
        let codes = (1...30).map { "code-\($0)" }
        let replay = try Fixtures.replayDirectory(codes: codes)
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  client_buffer: 4096\n"))
        let stalled = try daemon.connect()
        let clients = try (0..<50).map { _ in try daemon.connect() }
        // Read all fifty side by side until each has 90 reads (three seconds of codes).
        var seqs = [[Int]](repeating: [], count: clients.count)
        let deadline = Date().addingTimeInterval(60)
        while seqs.contains(where: { $0.count < 90 }), Date() < deadline {
            for (index, client) in clients.enumerated() where seqs[index].count < 90 {
                while let event = client.event(timeout: 0.001) {
                    if event["type"] as? String == "scan", let seq = event["seq"] as? Int { seqs[index].append(seq) }
                }
            }
        }
        for received in seqs {
            // Each client sees a gap-free run of sequence numbers: every read, in order.
            #expect(received.count >= 90)
            #expect(received == Array((received.first ?? 0)..<((received.first ?? 0) + received.count)), "reads missing or out of order")
        }
        // The client that never read was cut off with a logged reason, after a bounded amount.
        #expect(daemon.waitForLog("disconnected: not reading"))
        var bytes = 0
        while let line = stalled.line(timeout: 5) { bytes += line.utf8.count + 1 }
        #expect(bytes > 0 && bytes < 256 * 1024, "the stalled client was sent \(bytes) bytes")
        let status = try #require(clients[0].command("status")?["status"] as? [String: Any])
        #expect(status["clients"] as? Int == 50)
        #expect(daemon.stop() == 0)
    }

    @Test func tenThousandMalformedCommandLinesEachGetAnErrorReply() throws {
        let replay = try Fixtures.replayDirectory(codes: ["fuzz"])
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  format: plain\n"))
        let client = try daemon.connect()
        var generator = SeededGenerator(seed: 42)
        var lines = 0
        var valid = 0
        var replies = 0
        var errors = 0
        // Sent in batches of 100, each batch's replies read before the next: a client that never
        // reads its replies is a stalled client, and is cut off like one.
        for batchStart in stride(from: 0, to: 10_000, by: 100) {
            var batch: [UInt8] = []
            for index in batchStart..<(batchStart + 100) {
                let length = index % 97 == 0 ? Int.random(in: 257...5000, using: &generator) : Int.random(in: 0...40, using: &generator)
                var line = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }.filter { $0 != UInt8(ascii: "\n") }
                if index % 10 == 0 { line = Array(["torch", "torch sideways", "pause now", "STATUS", "beep beep", "trigger"][index / 10 % 6].utf8) }
                // Valid: parses, and is not `trigger`, which presentation mode refuses.
                if line.count <= Command.maxLineBytes, case .success(let command) = Command.parse(String(decoding: line, as: UTF8.self)), command != .trigger {
                    valid += 1
                }
                batch += line + [UInt8(ascii: "\n")]
                lines += 1
            }
            client.send(batch)
            while replies < lines, let line = client.line(timeout: 20) {
                if line.hasPrefix("ok") || line.hasPrefix("error: ") { replies += 1 }
                if line.hasPrefix("error: ") { errors += 1 }
            }
        }
        #expect(replies == lines)
        #expect(errors == lines - valid)
        client.send("status")
        #expect(client.waitForPlain("ok camera=") != nil, "connection still usable")
        #expect(daemon.process.isRunning)
    }

    @Test func sighupWithABadConfigKeepsTheRunningOne() throws {
        let replay = try Fixtures.replayDirectory(codes: ["reload"])
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"))
        let client = try daemon.connect()
        #expect(client.waitForScan("reload").match != nil)
        try "camera:\n  fps: lots\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        // Still serving: a command round trip works, and the error was logged with file, line and key.
        #expect(client.command("status")?["ok"] as? Bool == true)
        let deadline = Date().addingTimeInterval(5)
        while !daemon.log.contains("config reload failed"), Date() < deadline { usleep(20_000) }
        #expect(daemon.log.contains("config reload failed, keeping the running config: \(daemon.configPath):2: camera.fps: expected a whole number"))
        // A good config then applies: the torch mode changes and is published.
        try Fixtures.config(device: "replay:\(replay)", extra: "scanner:\n  torch: off\n").replacingOccurrences(of: "scanner:\n  stall_timeout: 2\n", with: "")
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let state = client.waitFor { $0["type"] as? String == "state" && $0["torch_mode"] as? String == "off" }.match
        #expect(state?["torch"] as? String == "off")
    }

    @Test func notifyMessagesReachNotifySocket() throws {
        let notify = try NotifyListener()
        let replay = try Fixtures.replayDirectory(codes: ["notify"])
        let daemon = try DaemonProcess(
            config: Fixtures.config(device: "replay:\(replay)"),
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
        #expect(notify.waitFor("READY=1") != nil)
        #expect(notify.waitFor("STATUS=camera streaming") != nil)
        #expect(notify.waitFor("WATCHDOG=1") != nil)
        daemon.signal(SIGTERM)
        #expect(notify.waitFor("STOPPING=1") != nil)
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
    }

    @Test func staleSocketIsReplacedButALiveOneIsNot() throws {
        let replay = try Fixtures.replayDirectory(codes: ["stale"])
        let first = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"))
        _ = try first.connect()
        // A second daemon on the same path refuses to start and says why.
        let second = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"), socketPath: first.socketPath)
        second.process.waitUntilExit()
        #expect(second.process.terminationStatus != 0)
        #expect(second.log.contains("is served by a running process"))
        #expect(try first.connect().command("status")?["ok"] as? Bool == true, "the first daemon is untouched")
        // Killed without cleanup, the first leaves a stale file, which the next daemon replaces.
        first.signal(SIGKILL)
        first.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: first.socketPath))
        let third = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"), socketPath: first.socketPath)
        #expect(try third.connect().waitForScan("stale").match != nil)
    }

    @Test func sigpipeFromVanishingClientsNeverKillsTheDaemon() throws {
        let replay = try Fixtures.replayDirectory(codes: (1...10).map { "pipe-\($0)" })
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"))
        for _ in 0..<30 {
            let client = try daemon.connect()
            client.send(Array(repeating: UInt8(ascii: "s"), count: 3000) + [10] + Array("status\n".utf8))
        }
        let survivor = try daemon.connect()
        #expect(survivor.command("status")?["ok"] as? Bool == true)
        #expect(daemon.process.isRunning)
    }
}

extension SocketClient {
    /// Waits for a plain-format line starting with `prefix`.
    func waitForPlain(_ prefix: String, timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0, let line = line(timeout: deadline.timeIntervalSinceNow) {
            if line.hasPrefix(prefix) { return line }
        }
        return nil
    }
}
