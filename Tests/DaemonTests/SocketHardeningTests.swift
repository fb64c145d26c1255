import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a hostile or careless client can do to the socket, each case against the real binary:
/// no crash, no leak, no read taken by a tool or counted as delivered to nobody, bounded memory
/// and descriptors, and control only for those allowed it.
@Suite(.serialized) struct SocketHardeningTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("hardening") }

    func status(_ client: SocketClient) throws -> [String: Any] {
        try #require(client.command("status")?["status"] as? [String: Any])
    }

    @Test func aRecordingOfAMicrosecondOrLessEndsAndTheDaemonLives() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start()
        let client = try daemon.connect()
        _ = client.waitForCamera("streaming")
        for seconds in ["0.000001", "0.0000000001", "1e-300"] {
            #expect(client.command("record \(seconds)")?["ok"] as? Bool == true, "record \(seconds)")
            #expect(client.waitFor { $0["type"] as? String == "record-end" }.match != nil)
        }
        #expect(try status(client)["clients"] as? Int == 1)
        #expect(daemon.process.isRunning)
    }

    @Test func connectionsClosedAtOnceLeaveNoClientBehind() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start()
        _ = try daemon.connect().waitForCamera("streaming")
        // Each connects and closes at once (SocketClient closes as it goes out of scope).
        for _ in 0..<3000 { _ = SocketClient(path: daemon.socketPath) }
        // Every entry went away: the table is empty again, so a read is held, not sent to ghosts.
        let client = try daemon.connect(subscribe: false)
        client.send("unsubscribe")
        #expect(client.waitFor { $0["command"] as? String == "unsubscribe" }.match != nil)
        var clients = -1
        let deadline = Date().addingTimeInterval(10)
        repeat { clients = try status(client)["clients"] as? Int ?? -1 } while clients != 1 && Date() < deadline
        #expect(clients == 1)
        try bench.show("after the storm")
        #expect(daemon.waitForLog("holding read 1"))
        #expect((try status(client)["counters"] as? [String: Any])?["reads"] as? Int == 0)
    }

    @Test func toolsNeverTakeHeldReads() throws {
        try bench.show("for the POS")
        let daemon = try bench.start()
        #expect(daemon.waitForLog("holding read 1"))
        for arguments in [["status"], ["status", "--json"], ["status", "--prometheus"]] {
            let result = try Tool.capture(Tool.scannerBinary, arguments + ["--socket", daemon.socketPath])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let snapshot = try Tool.capture(Tool.scannerBinary, ["snapshot", "--out", bench.directory + "/held.png", "--socket", daemon.socketPath])
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        // A POS application that connects and only reads gets the read, once consumer_after has passed.
        let pos = try daemon.connect(subscribe: false)
        let read = pos.waitForScan("for the POS").match
        #expect(read?["seq"] as? Int == 1)
        let counters = try #require(try status(pos)["counters"] as? [String: Any])
        #expect(counters["reads"] as? Int == 1)
    }

    @Test func aReadWrittenToAClientThatStoppedReceivingIsHeldAgain() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start()
        let gone = try daemon.connect()
        _ = gone.waitForCamera("streaming")
        // The peer no longer receives: the kernel refuses the daemon's write (EPIPE), while the
        // connection still looks open from the daemon's side.
        shutdown(gone.fd, Int32(SHUT_RD))
        try bench.show("not lost")
        #expect(daemon.waitForLog("held again"))
        let pos = try daemon.connect()
        #expect(pos.waitForScan("not lost").match?["seq"] as? Int == 1)
        let counters = try #require(try status(pos)["counters"] as? [String: Any])
        #expect(counters["reads"] as? Int == 1, "delivered once, to the client that got it")
    }

    @Test func clientsPastTheLimitAreToldAndClosed() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start(extra: "socket:\n  max_clients: 4\n")
        let clients = try (0..<4).map { _ in try daemon.connect() }
        let extra = try #require(SocketClient(path: daemon.socketPath))
        let refusal = extra.event()
        #expect((refusal?["error"] as? String)?.contains("too many clients (socket.max_clients 4)") == true, "\(String(describing: refusal))")
        #expect(extra.line(timeout: 5) == nil, "closed after the error")
        // One leaves; the next one is served.
        clients[0].hangUp()
        var served: [String: Any]?
        let deadline = Date().addingTimeInterval(10)
        repeat { served = try daemon.connect().command("status") } while served?["ok"] as? Bool != true && Date() < deadline
        #expect(served?["ok"] as? Bool == true)
        #expect(((try status(clients[1])["counters"] as? [String: Any])?["clients_refused"] as? Int ?? 0) >= 1)
    }

    @Test func withDescriptorsRunningOutClientsAreRefusedAndTheCameraStillComesBack() throws {
        try bench.show("before")
        let daemon = try bench.start(extra: "socket:\n  max_clients: 1000\n")
        let pos = try daemon.connect()
        #expect(pos.waitForScan("before").match != nil)
        let open = daemon.resourceCounts.fds
        try Tool.run("prlimit", ["--pid", "\(daemon.pid)", "--nofile=\(open + 60):\(open + 60)"])
        var clients: [SocketClient] = []
        for _ in 0..<200 { if let client = SocketClient(path: daemon.socketPath) { clients.append(client) } }
        #expect(daemon.waitForLog("client refused: too many open files"))
        let (ticks, _) = Self.cpuTicks(daemon.pid)
        usleep(2_000_000)  // the absence of an accept loop is the behaviour under test
        let (after, hz) = Self.cpuTicks(daemon.pid)
        #expect(Double(after - ticks) / Double(hz) < 0.6, "the daemon used \(Double(after - ticks) / Double(hz)) s of CPU in 2 s")
        // The camera is unplugged and comes back: it is reopened, and its next code delivered.
        bench.camera.unplug()
        #expect(pos.waitForCamera("unavailable") != nil || pos.waitForCamera("interrupted") != nil)
        try bench.show("after")
        #expect(pos.waitForScan("after", timeout: 20).match != nil, "descriptors: \(open) at first, \(daemon.resourceCounts.fds) now")
        #expect(daemon.process.isRunning)
    }

    @Test func clientsThatNeverReadCannotGrowMemoryPastTheTotalQueueLimit() throws {
        try bench.show("big frames")
        // A small kernel queue per client: what they do not read stays in the daemon's memory.
        let daemon = try bench.start(extra: "socket:\n  max_clients: 200\n  max_queued: 2097152\n  client_buffer: 8192\n")
        let first = try daemon.connect()
        #expect(first.waitForScan("big frames").match != nil)
        let before = Self.rssKiB(daemon.pid)
        // Each asks for a 640x480 frame (a 410 KB line) and never reads it.
        let stalled = try (0..<100).map { _ in try daemon.connect(subscribe: false) }
        for client in stalled { client.send("snapshot") }
        #expect(daemon.waitForLog("socket.max_queued"))
        #expect(try status(first)["clients"] as? Int ?? 0 >= 1)
        let growth = Self.rssKiB(daemon.pid) - before
        #expect(growth < 16 * 1024, "RSS grew by \(growth) KiB for 100 clients that never read")
    }

    @Test func onlyRootAndTheControlGroupMayControlAndSeeImages() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start(extra: "socket:\n  mode: \"0666\"\n")
        _ = try daemon.connect().waitForCamera("streaming")
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        for command in ["pause", "torch on", "snapshot", "record 1", "beep", "trigger"] {
            let reply = try Self.ask(daemon.socketPath, command, as: nobody)
            #expect(reply.contains("permission denied"), "\(command): \(reply)")
        }
        #expect(try Self.ask(daemon.socketPath, "status", as: nobody).contains(#""ok":true"#))
        #expect(daemon.log.contains("refused: pause"))

        let grouped = try bench.start(extra: "socket:\n  mode: \"0666\"\n  control_group: nogroup\n")
        _ = try grouped.connect().waitForCamera("streaming")
        #expect(try Self.ask(grouped.socketPath, "torch on", as: nobody).contains(#""ok":true"#))
        #expect(try Self.ask(grouped.socketPath, "snapshot", as: nobody).contains(#""ok":true"#))
        #expect(grouped.log.contains("takes camera images: snapshot"), "logged with uid and pid")
        #expect(grouped.log.contains("(uid 65534, pid "))
        #expect(try Self.ask(grouped.socketPath, "pause", as: nobody).contains(#""ok":true"#))
        #expect(try Self.ask(grouped.socketPath, "snapshot", as: nobody).contains("refused while scanning is paused"))

        let blind = try bench.start(extra: "socket:\n  images: false\n")
        let root = try blind.connect()
        _ = root.waitForCamera("streaming")
        #expect((root.command("snapshot")?["error"] as? String)?.contains("socket.images: false") == true)
    }

    // MARK: Helpers

    /// Sends one line as another user (setpriv) and returns the reply line.
    static func ask(_ socket: String, _ line: String, as credentials: [String]) throws -> String {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            s.sendall((sys.argv[2] + "\\n").encode())
            for line in s.makefile():
                if '"type":"reply"' in line:
                    print(line.strip())
                    break
            """
        return try Tool.capture("setpriv", credentials + ["/usr/bin/python3", "-c", script, socket, line]).stdout
    }

    /// utime + stime of `pid`, in clock ticks, and the ticks per second.
    static func cpuTicks(_ pid: Int32) -> (Int, Int) {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        let ticks = fields.count > 13 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        return (ticks, sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory of `pid` in KiB (VmRSS).
    static func rssKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
