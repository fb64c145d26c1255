import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a spool directory or a broker can inject into the real bridge (issue #33): a planted spool
/// is quarantined and publishes nothing of its own, a burst of commands is answered in full at the
/// daemon's pace, a forged log line stays one escaped line, and a planted textfile symlink is left
/// alone.
@Suite(.serialized) struct MQTTHardeningTests {
    let directory: String

    init() throws {
        directory = try TemporaryDirectory.shared.directory("mqtt-hardening")
    }

    func daemon() throws -> DaemonProcess {
        let frames = try Fixtures.replayDirectory(codes: ["hard one", "hard two", "hard three"], blanks: 20)
        return try DaemonProcess(config: Fixtures.config(device: "replay:\(frames)", camera: "  fps: 60"))
    }

    func bridge(_ daemon: DaemonProcess, port: Int, spool: String, log: String) throws -> LoggedProcess {
        let config = try Fixtures.bridgeConfig(
            socket: daemon.socketPath, port: port, spool: spool, extra: "  metrics_textfile: \(directory)/bridge.prom\n  commands: [status]",
            in: directory, name: log)
        return try Fixtures.bridge(config: config, in: directory, name: log)
    }

    /// For a burst of commands: a broker that keeps every message for a slow client (its default
    /// drops past 1,000 queued), a subscriber to the replies, the daemon, and the bridge (with
    /// `spool`, logging to `log`) connected to both.
    func commandBench(spool: String, log: String) throws -> (broker: Broker, replies: Subscriber, daemon: DaemonProcess, bridge: LoggedProcess) {
        let broker = try Broker(extra: "max_queued_messages 0\n")
        let replies = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/cmd/reply"])
        let daemon = try daemon()
        let bridge = try bridge(daemon, port: broker.port, spool: spool, log: log)
        Fixtures.expectConnected(bridge)
        return (broker, replies, daemon, bridge)
    }

    /// Publishes `count` status commands at once: one message a line of the file `lines`.
    func publishStatusCommands(_ count: Int, port: Int, through lines: String) throws {
        try String(repeating: "status\n", count: count).write(toFile: lines, atomically: true, encoding: .utf8)
        try Tool.run("/bin/sh", ["-c", "/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(port) -q 1 -t kiosk-scanner/lane/cmd -l < \(lines)"])
    }

    static func entry(_ id: Int, _ suffix: String = "scan") -> String {
        let digits = String(id)
        return String(repeating: "0", count: 20 - digits.count) + digits + "." + suffix
    }

    static func scan(_ seq: Int, _ text: String) -> String {
        #"{"boot_id":"earlier","device":"lane","seq":\#(seq),"text":"\#(text)","type":"scan"}"#
    }

    @Test func aPlantedSpoolIsQuarantinedAndOnlyReadsArePublished() throws {
        let spool = "\(directory)/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        func plant(_ name: String, _ text: String) throws { try text.write(toFile: "\(spool)/\(name)", atomically: false, encoding: .utf8) }
        symlink("/etc/passwd", "\(spool)/\(Self.entry(1, "msg"))")
        symlink("/dev/zero", "\(spool)/\(Self.entry(2))")
        mkfifo("\(spool)/\(Self.entry(3))", 0o600)
        try plant("18446744073709551615.msg", "kiosk-scanner/lane/scan\n" + Self.scan(4, "planted max"))
        try plant("0000000000000000000000000005.scan", Self.scan(5, "planted long"))
        try plant(Self.entry(6, "msg"), "kiosk-scanner/#\n" + Self.scan(6, "planted hash"))
        try plant(Self.entry(7, "msg"), "elsewhere/topic\n" + Self.scan(7, "planted elsewhere"))
        // An entry of the older format for this scanner: taken over and delivered.
        try plant(Self.entry(8, "msg"), "kiosk-scanner/lane/scan\n" + Self.scan(8, "old and ours"))
        // The bridge's textfile is written past a symlink planted at the old temporary name.
        let victim = "\(directory)/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        symlink(victim, "\(directory)/bridge.prom.tmp")

        let broker = try Broker()
        let everything = try Subscriber(port: broker.port, topics: ["#"])
        let daemon = try daemon()
        let bridge = try bridge(daemon, port: broker.port, spool: spool, log: "planted")
        #expect(bridge.waitForLog("connected to the broker"), "\(bridge.log)")
        var messages: [(topic: String, payload: String)] = []
        let deadline = Date().addingTimeInterval(60)
        while !messages.contains(where: { MQTTTests.json($0.payload)?["seq"] as? Int == 3 && $0.payload.contains("hard") }),
            let message = everything.message(timeout: deadline.timeIntervalSinceNow)
        {
            messages.append(message)
        }
        let scans = messages.filter { $0.topic == "kiosk-scanner/lane/scan" }.compactMap { MQTTTests.json($0.payload)?["text"] as? String }
        #expect(scans.first == "old and ours", "the old entry first, then the daemon's reads: \(scans)")
        #expect(scans.dropFirst().prefix(3) == ["hard one", "hard two", "hard three"], "\(scans)")
        #expect(!messages.contains { $0.payload.contains("root:") || $0.payload.contains("planted") }, "\(messages)")
        #expect(messages.allSatisfy { $0.topic.hasPrefix("kiosk-scanner/lane/") }, "\(messages.map(\.topic))")
        #expect(bridge.process.isRunning)

        // Each bad entry logged once, as one line, and counted where an operator looks.
        let log = bridge.log
        for reason in [
            "is a symbolic link", "is a FIFO", "is an id out of range", "is not a spool entry's name",
            "is an old entry for another topic: kiosk-scanner/#", "is an old entry for another topic: elsewhere/topic",
        ] {
            #expect(log.contains(reason), "\(reason): \(log)")
        }
        #expect(log.components(separatedBy: "is a FIFO").count == 2)
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: "\(spool)/quarantine")
        #expect(quarantined.count == 7, "\(quarantined)")
        let state = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/state"])
        let spoolState = MQTTTests.json(state.waitFor("kiosk-scanner/lane/state"))?["spool"] as? [String: Any]
        #expect(spoolState?["quarantined"] as? Int == 7, "\(String(describing: spoolState))")
        let textfile = (try? String(contentsOfFile: "\(directory)/bridge.prom", encoding: .utf8)) ?? ""
        #expect(textfile.contains("kiosk_scanner_mqtt_spool_quarantined_total 7\n"), "\(textfile)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/bridge.prom.tmp") == victim)

        // Every read spooled is acknowledged to the daemon, which takes the ack; its reply is taken
        // for no command reply of the broker's.
        #expect(bridge.waitForLog("ack 1: taken"), "\(bridge.log)")
        #expect(!bridge.log.contains("the daemon does not take acks"))
        #expect(!bridge.log.contains("no reply"))
        _ = daemon
    }

    /// `kiosk-scanner mqtt` run by hand by a user, without spool_dir: the spool goes to the user's
    /// state directory, which the user can create, and the bridge starts instead of failing on
    /// /var/lib/kiosk-scanner.
    @Test(.enabled(if: geteuid() == 0, "runs the bridge as another user"))
    func byHandAUsersSpoolIsInTheirStateDirectory() throws {
        chmod(directory, 0o755)
        let home = "\(directory)/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        chown(home, 65534, 65534)
        let config = "\(directory)/by-hand.conf"
        try "socket:\n  path: \(directory)/no-daemon.sock\nmqtt:\n  host: 127.0.0.1\n  port: 1\n  device_id: lane\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o644)
        let user = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "-i", "HOME=\(home)"]
        let bridge = try LoggedProcess(
            user[0], Array(user.dropFirst()) + [Tool.scannerBinary, "mqtt", "--config", config], logPath: "\(directory)/by-hand.log")
        let spool = "\(home)/.local/state/kiosk-scanner/mqtt-spool"
        #expect(bridge.waitForLog("no reads from an earlier run in the spool \(spool)"), "\(bridge.log)")
        let made = try FileManager.default.attributesOfItem(atPath: spool)
        #expect(made[.ownerAccountID] as? Int == 65534 && made[.posixPermissions] as? Int == 0o700, "\(made)")
        #expect(bridge.process.isRunning, "\(bridge.log)")
    }

    /// 5,000 commands at once: each gets its reply, or a `busy` refusal; the daemon never cuts the
    /// bridge off, while reads and their acks go on between the commands.
    @Test func aBurstOfCommandsIsAnsweredInFull() throws {
        // Run by hand with a spool whose parents do not exist: made, not "No such file or directory".
        let (broker, replies, daemon, bridge) = try commandBench(spool: "\(directory)/state/kiosk-scanner/mqtt-spool", log: "burst")
        let count = 5000
        try publishStatusCommands(count, port: broker.port, through: "\(directory)/commands")
        var answered = 0
        var busy = 0
        var other: [String] = []
        while answered + busy + other.count < count, let message = replies.message(timeout: 60) {
            let reply = MQTTTests.json(message.payload)
            if reply?["ok"] as? Bool == true && reply?["status"] != nil && reply?["request"] as? String == "status" {
                answered += 1
            } else if (reply?["error"] as? String)?.hasPrefix("busy") == true {
                busy += 1
            } else {
                other.append(message.payload)
            }
        }
        #expect(answered + busy == count, "answered \(answered), busy \(busy), other \(other.prefix(3))")
        #expect(answered >= 8, "at least a window's worth reached the daemon")
        #expect(!bridge.log.contains("connection closed"), "the daemon never cut the bridge off: \(bridge.log.suffix(2000))")
        #expect(!daemon.log.contains("not reading"))
        #expect(bridge.log.contains("commands from the broker come faster than the daemon answers") || busy == 0)

        // A refused payload with a newline is one escaped log line; a 1 MB request is not echoed whole.
        try publishMQTT(port: broker.port, topic: "kiosk-scanner/lane/cmd", "pause\nkiosk-scanner-mqtt: forged")
        let refused = try #require(MQTTTests.json(replies.waitFor("kiosk-scanner/lane/cmd/reply")))
        #expect(refused["ok"] as? Bool == false)
        #expect(bridge.waitForLog(#"refused: 'pause\nkiosk-scanner-mqtt: forged'"#), "\(bridge.log.suffix(2000))")
        #expect(!bridge.log.split(separator: "\n").contains { $0.hasPrefix("kiosk-scanner-mqtt: forged") })
        let big = "\(directory)/big"
        try ("status " + String(repeating: "x", count: 1 << 20)).write(toFile: big, atomically: true, encoding: .utf8)
        try Tool.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", "kiosk-scanner/lane/cmd", "-f", big])
        let echoed = try #require(replies.waitFor("kiosk-scanner/lane/cmd/reply"))
        #expect(echoed.utf8.count < 1024, "\(echoed.prefix(300))")
        #expect(MQTTTests.json(echoed)?["error"] as? String == "longer than 256 bytes, the longest command line")
        _ = daemon
    }

    /// The daemon goes away under a burst: the commands it had, and those waiting, are still answered.
    @Test func commandsInFlightWhenTheDaemonGoesAreAnswered() throws {
        let (broker, replies, daemon, bridge) = try commandBench(spool: "\(directory)/spool-lost", log: "lost")
        // Stopped, the daemon takes the window's commands and answers none; the queue fills behind them.
        daemon.signal(SIGSTOP)
        let count = 2000
        let held = 8 + 256
        try publishStatusCommands(count, port: broker.port, through: "\(directory)/commands-lost")
        var errors: [String] = []
        while errors.count < count - held, let message = replies.message(timeout: 60) {
            errors.append(MQTTTests.json(message.payload)?["error"] as? String ?? "")
        }
        #expect(errors.allSatisfy { $0.hasPrefix("busy") }, "\(Set(errors))")
        // Then it dies: the window and the queue are answered, none left waiting.
        daemon.signal(SIGKILL)
        daemon.signal(SIGCONT)
        var lost: [String] = []
        while lost.count < held, let message = replies.message(timeout: 60) {
            lost.append(MQTTTests.json(message.payload)?["error"] as? String ?? "")
        }
        #expect(lost.filter { $0.contains("lost before it answered; the command may have been carried out") }.count == 8, "\(Set(lost))")
        #expect(lost.filter { $0.contains("lost before the command was sent") }.count == 256, "\(Set(lost))")
        #expect(bridge.waitForLog("connection closed; reconnecting"), "\(bridge.log.suffix(1000))")
    }
}
