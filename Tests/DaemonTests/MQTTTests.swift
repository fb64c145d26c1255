import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The MQTT bridge between a real daemon (replaying frames) and Debian's mosquitto broker, heard
/// by mosquitto_sub: every read once and in order, retained state and availability, the last will,
/// commands, a broker outage and a bridge restart without a read lost, TLS, and clear errors.
@Suite(.serialized) struct MQTTTests {
    static var bridgeBinary: String { URL(fileURLWithPath: Tool.scannerBinary).deletingLastPathComponent().appendingPathComponent("kiosk-scanner-mqtt").path }

    let directory: String

    init() throws {
        directory = try TemporaryDirectory.shared.directory("mqtt")
    }

    /// A daemon replaying four codes in a loop, each a new read every time it comes round.
    func daemon() throws -> DaemonProcess {
        let frames = try Fixtures.replayDirectory(codes: ["mqtt one", "mqtt two", "mqtt three", "mqtt four"], blanks: 20)
        return try DaemonProcess(config: Fixtures.config(device: "replay:\(frames)", camera: "  fps: 60"))
    }

    func bridgeConfig(_ daemon: DaemonProcess, port: Int, extra: String = "") throws -> String {
        try Fixtures.bridgeConfig(
            socket: daemon.socketPath, port: port, spool: "\(directory)/spool",
            extra: "  metrics_textfile: \(directory)/bridge.prom\n  keepalive: 5\n  commands: [status]\n\(extra)", in: directory,
            name: "bridge-\(UUID().uuidString.prefix(6))")
    }

    func bridge(_ config: String, log: String = "bridge.log") throws -> LoggedProcess {
        try LoggedProcess(Self.bridgeBinary, ["--config", config, "--log-level", "debug"], logPath: "\(directory)/\(log)")
    }

    /// The `seq` of each scan message, in arrival order, until `last` has come (or the time is up).
    static func seqs(from subscriber: Subscriber, through last: Int, timeout: Double = 60) -> [Int] {
        var seen: [Int] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !seen.contains(last), deadline.timeIntervalSinceNow > 0, let message = subscriber.message(timeout: deadline.timeIntervalSinceNow) {
            guard message.topic.hasSuffix("/scan"), let object = json(message.payload), let seq = object["seq"] as? Int else { continue }
            seen.append(seq)
        }
        return seen
    }

    static func json(_ text: String?) -> [String: Any]? {
        guard let text else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// The first time each seq came, in arrival order: what a consumer keeps after dropping duplicates.
    static func firstArrivals(_ seqs: [Int]) -> [Int] {
        var kept: [Int] = []
        for seq in seqs where !kept.contains(seq) { kept.append(seq) }
        return kept
    }

    /// The daemon's read counter.
    static func reads(_ client: SocketClient) -> Int {
        ((client.command("status")?["status"] as? [String: Any])?["counters"] as? [String: Any])?["reads"] as? Int ?? -1
    }

    func metric(_ name: String) -> Int? {
        let text = (try? String(contentsOfFile: "\(directory)/bridge.prom", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("kiosk_scanner_mqtt_\(name) ") }.flatMap { Int($0.split(separator: " ").last!) }
    }

    /// The bridge reads only its own sections of the config, so it links none of the libraries the
    /// daemon needs for the camera, the decoders, GPIO and image files: a bridge on a broker's
    /// host costs a few MiB, not the daemon's.
    @Test func theBridgeLinksNoneOfTheDaemonsLibraries() throws {
        let needed = try Tool.run("readelf", ["-d", Self.bridgeBinary]).stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libmosquitto") } && needed.contains { $0.contains("libyaml") })
        for library in ["libzbar", "libv4l2", "libgpiod", "libturbojpeg", "libpng", "libxkbcommon", "libzxing"] {
            #expect(!needed.contains { $0.contains(library) }, "the bridge links \(library)")
        }
        let daemon = try Tool.run("readelf", ["-d", Tool.scannerBinary]).stdout
        #expect(daemon.contains("libv4l2"), "the check would see a library the daemon links")
    }

    @Test func everyReadArrivesOnceWithRetainedStateAndAWillThatSaysOffline() throws {
        let broker = try Broker(start: false)
        let daemon = try daemon()
        let control = try daemon.connectControl()
        let bridge = try bridge(bridgeConfig(daemon, port: broker.port, extra: "  home_assistant: true"))
        // No broker yet: a clear message, and the bridge keeps trying.
        #expect(bridge.waitForLog("could not connect: Connection refused"), "\(bridge.log)")
        try broker.start()
        let subscriber = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/#"])
        let seqs = Self.seqs(from: subscriber, through: 6)
        #expect(Array(seqs.prefix(6)) == [1, 2, 3, 4, 5, 6], "each read once, in order, the early ones from the spool: \(seqs)")

        // Retained: a subscriber that comes later gets the state and the availability at once.
        let late = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/state", "kiosk-scanner/lane/availability"])
        #expect(late.waitFor("kiosk-scanner/lane/availability") == "online")
        let state = try #require(Self.json(late.waitFor("kiosk-scanner/lane/state") { Self.json($0)?["boot_id"] != nil }))
        #expect((state["scanner"] as? [String: Any])?["camera"] as? String == "streaming")
        #expect((state["bridge"] as? [String: Any])?["broker"] as? String == "connected")
        let bootID = (control.command("status")?["status"] as? [String: Any])?["boot_id"] as? String
        #expect(bootID != nil && state["boot_id"] as? String == bootID, "the daemon's boot id, for telling reads apart")

        // Home Assistant discovery, retained: the scan sensor, and the torch (a binary sensor: the broker may not send torch).
        let discovery = try Subscriber(port: broker.port, topics: ["homeassistant/#"])
        let sensor = try #require(Self.json(discovery.waitFor("homeassistant/sensor/kiosk_scanner_lane/scan/config")))
        #expect(sensor["state_topic"] as? String == "kiosk-scanner/lane/scan" && sensor["availability_topic"] as? String == "kiosk-scanner/lane/availability")
        let torch = try #require(Self.json(discovery.waitFor("homeassistant/binary_sensor/kiosk_scanner_lane/torch/config")))
        #expect(torch["state_topic"] as? String == "kiosk-scanner/lane/state" && torch["command_topic"] == nil)

        // Commands: one the config does not allow is refused with a reply; an allowed one is answered by the daemon.
        let replies = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/cmd/reply"])
        try publishMQTT(port: broker.port, topic: "kiosk-scanner/lane/cmd", "pause")
        let refused = try #require(Self.json(replies.waitFor("kiosk-scanner/lane/cmd/reply")))
        #expect(refused["ok"] as? Bool == false && (refused["error"] as? String)?.contains("not allowed") == true, "\(refused)")
        #expect(control.command("status").flatMap { ($0["status"] as? [String: Any])?["state"] as? [String: Any] }?["paused"] as? Bool == false)
        try publishMQTT(port: broker.port, topic: "kiosk-scanner/lane/cmd", "status")
        let answered = try #require(Self.json(replies.waitFor("kiosk-scanner/lane/cmd/reply")))
        #expect(answered["ok"] as? Bool == true && answered["request"] as? String == "status" && answered["status"] != nil)

        // Killed outright: the broker publishes the last will.
        bridge.stop(SIGKILL)
        #expect(subscriber.waitFor("kiosk-scanner/lane/availability") == "offline")
    }

    @Test func aBrokerOutageAndABridgeRestartLoseNoRead() throws {
        let broker = try Broker()
        let daemon = try daemon()
        let control = try daemon.connectControl()
        // The subscriber's session is there before the first read: the broker keeps its messages.
        let subscriber = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/scan"], clientID: "outage-subscriber")
        #expect(broker.waitForLog("outage-subscriber"))
        let config = try bridgeConfig(daemon, port: broker.port)
        var bridge = try bridge(config)
        var seqs = Self.seqs(from: subscriber, through: 2)
        try #require(seqs.contains(2), "\(seqs)")

        // The broker goes for 30 s while reads go on: they wait in the spool, as its counters show.
        broker.stop()
        let down = Date()
        while Date().timeIntervalSince(down) < 30 || (metric("spool_queued") ?? 0 == 0 && Date().timeIntervalSince(down) < 60) { usleep(200_000) }
        #expect(metric("broker_up") == 0)
        #expect((metric("spool_queued") ?? 0) > 0)
        try broker.start()
        let afterOutage = Self.reads(control)
        #expect(afterOutage > 10, "reads went on during the outage")
        seqs += Self.seqs(from: subscriber, through: afterOutage)
        #expect(Array(Self.firstArrivals(seqs).prefix(afterOutage)) == Array(1...afterOutage), "none lost, in order: \(seqs)")
        // The state (retained, and sent again at each status poll, every 10 s) shows the loss and
        // what the spool sent.
        let stateWatcher = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/state"])
        let state = stateWatcher.waitFor("kiosk-scanner/lane/state", timeout: 30) { text in
            let object = Self.json(text)
            return (object?["bridge"] as? [String: Any])?["broker_losses"] as? Int == 1
                && ((object?["spool"] as? [String: Any])?["sent"] as? Int ?? 0) >= afterOutage
        }
        #expect(state != nil, "a state with the broker's loss and at least \(afterOutage) reads sent by the spool")

        // The broker goes again, and the bridge is restarted meanwhile: the spool outlives it.
        broker.stop()
        let readsAtStop = Self.reads(control)
        let queuedBefore = Date()
        while Self.reads(control) < readsAtStop + 3 && Date().timeIntervalSince(queuedBefore) < 30 { usleep(100_000) }
        #expect(bridge.stop() == 0, "SIGTERM ends the bridge cleanly")
        bridge = try self.bridge(config, log: "bridge-2.log")
        #expect(bridge.waitForLog("wait in the spool"), "\(bridge.log)")
        try broker.start()
        let afterRestart = Self.reads(control)
        seqs += Self.seqs(from: subscriber, through: afterRestart)
        #expect(Array(Self.firstArrivals(seqs).prefix(afterRestart)) == Array(1...afterRestart), "none lost across the restart: \(seqs)")
        bridge.stop()
    }

    /// The daemon restarts under the bridge: the loss shows in the state and the metrics, and the
    /// new daemon's reads arrive under its new boot id, from seq 1.
    @Test func aDaemonRestartIsReportedAndReadsGoOn() throws {
        let broker = try Broker()
        let first = try daemon()
        let subscriber = try Subscriber(port: broker.port, topics: ["kiosk-scanner/lane/scan", "kiosk-scanner/lane/state"])
        let bridge = try bridge(bridgeConfig(first, port: broker.port))
        let before = try #require(Self.json(subscriber.waitFor("kiosk-scanner/lane/scan")))
        #expect(first.stop() == 0)
        #expect(bridge.waitForLog("connection closed; reconnecting"), "\(bridge.log)")
        let frames = try Fixtures.replayDirectory(codes: ["mqtt again"], blanks: 20)
        let second = try DaemonProcess(config: Fixtures.config(device: "replay:\(frames)", camera: "  fps: 60"), socketPath: first.socketPath)
        let after = try #require(
            Self.json(subscriber.waitFor("kiosk-scanner/lane/scan", timeout: 30) { Self.json($0)?["text"] as? String == "mqtt again" }))
        #expect(after["boot_id"] as? String != before["boot_id"] as? String && after["seq"] as? Int == 1)
        let state = Self.json(
            subscriber.waitFor("kiosk-scanner/lane/state") { text in
                let bridge = Self.json(text)?["bridge"] as? [String: Any]
                return bridge?["daemon_losses"] as? Int == 1 && bridge?["daemon"] as? String == "connected"
            })
        #expect(state != nil, "the state reports the lost daemon")
        #expect(metricEventually("daemon_losses_total", equals: 1), "and the metrics too")
        _ = second
    }

    /// Waits (the textfile is written every 10 s) until the bridge's metric `name` reads `value`.
    func metricEventually(_ name: String, equals value: Int, timeout: Double = 25) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if metric(name) == value { return true }
            usleep(200_000)
        }
        return false
    }
}

/// TLS with a CA made in the test, and the errors an installer meets: a wrong CA, a wrong host,
/// refused credentials.
@Suite(.serialized) struct MQTTConnectionErrorTests {
    let directory: String

    init() throws {
        directory = try TemporaryDirectory.shared.directory("mqtt-tls")
    }

    /// A CA and a server certificate for 127.0.0.1 signed by it, by openssl; returns the CA's path.
    func makeCA(_ name: String, serverCertificate: Bool) throws -> String {
        let ca = "\(directory)/\(name)"
        try Tool.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", ca + ".key", "-out", ca + ".crt", "-subj",
                "/CN=\(name)", "-days", "2",
            ])
        if serverCertificate {
            try Tool.run(
                "/usr/bin/openssl",
                [
                    "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "\(directory)/server.key", "-out",
                    "\(directory)/server.csr", "-subj", "/CN=127.0.0.1",
                ])
            try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(directory)/san.ext", atomically: true, encoding: .utf8)
            try Tool.run(
                "/usr/bin/openssl",
                [
                    "x509", "-req", "-in", "\(directory)/server.csr", "-CA", ca + ".crt", "-CAkey", ca + ".key", "-CAcreateserial", "-out",
                    "\(directory)/server.crt",
                    "-days", "2", "-extfile", "\(directory)/san.ext",
                ])
        }
        return ca + ".crt"
    }

    func bridge(port: Int, extra: String, log: String) throws -> LoggedProcess {
        let config = "\(directory)/\(log).conf"
        try """
        socket:
          path: \(directory)/no-daemon.sock
        mqtt:
          host: \(extra.contains("host:") ? "" : "127.0.0.1")
          port: \(port)
          device_id: tls-lane
          spool_dir: \(directory)/spool-\(log)
        \(extra)
        """.replacingOccurrences(of: "  host: \n", with: "").write(toFile: config, atomically: true, encoding: .utf8)
        return try LoggedProcess(MQTTTests.bridgeBinary, ["--config", config], logPath: "\(directory)/\(log).log")
    }

    @Test func tlsWithTheRightCAConnectsAndAWrongCAIsNamedInTheError() throws {
        let ca = try makeCA("test-ca", serverCertificate: true)
        let other = try makeCA("other-ca", serverCertificate: false)
        let tlsPort = Broker.freePort()
        let broker = try Broker(
            extra: "listener \(tlsPort) 127.0.0.1\ncafile \(ca)\ncertfile \(directory)/server.crt\nkeyfile \(directory)/server.key\n")
        let subscriber = try Subscriber(port: broker.port, topics: ["kiosk-scanner/tls-lane/availability"])
        let good = try bridge(port: tlsPort, extra: "  ca_file: \(ca)", log: "good")
        #expect(good.waitForLog("connected to the broker"), "\(good.log)")
        #expect(subscriber.waitFor("kiosk-scanner/tls-lane/availability") == "online", "published over TLS")
        good.stop()
        let wrong = try bridge(port: tlsPort, extra: "  ca_file: \(other)", log: "wrong")
        #expect(wrong.waitForLog("certificate verify failed"), "\(wrong.log)")
        #expect(wrong.log.contains(other), "the error names the CA file: \(wrong.log)")
        #expect(!wrong.log.contains("connected to the broker"))
        _ = broker
    }

    @Test func aWrongHostAndRefusedCredentialsSayWhatIsWrong() throws {
        let unknown = try bridge(port: 1883, extra: "  host: no-such-broker.invalid", log: "host")
        #expect(unknown.waitForLog("no-such-broker.invalid:1883: could not connect"), "\(unknown.log)")
        #expect(unknown.log.lowercased().contains("lookup"), "\(unknown.log)")

        let passwords = "\(directory)/passwords"
        try Tool.run("/usr/bin/mosquitto_passwd", ["-c", "-b", passwords, "till", "right-password"])
        let broker = try Broker(extra: "password_file \(passwords)\n", anonymous: false)
        try "wrong-password\n".write(toFile: "\(directory)/secret", atomically: true, encoding: .utf8)
        let refused = try bridge(port: broker.port, extra: "  username: till\n  password_file: \(directory)/secret", log: "refused")
        #expect(refused.waitForLog("refused: Connection Refused: not authorised"), "\(refused.log)")
        try "right-password\n".write(toFile: "\(directory)/secret", atomically: true, encoding: .utf8)
        let accepted = try bridge(port: broker.port, extra: "  username: till\n  password_file: \(directory)/secret", log: "accepted")
        #expect(accepted.waitForLog("connected to the broker"), "\(accepted.log)")
    }
}
