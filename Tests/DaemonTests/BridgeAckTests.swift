import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The MQTT bridge as the consumer of a daemon that needs acks (`socket.acknowledge: required`):
/// it acks each read once the read is in its spool, so the daemon counts every read delivered,
/// and each reaches the broker once, in order. Debian's mosquitto on a loopback port.
@Suite(.serialized) struct BridgeAckTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("bridge-ack") }

    func daemon(socket: String) throws -> DaemonProcess {
        try bench.start(extra: "socket:\n  acknowledge: required\n  hold_seconds: 60\n" + socket)
    }

    func bridge(_ daemon: DaemonProcess, port: Int) throws -> LoggedProcess {
        let directory = bench.directory
        let config = try Fixtures.bridgeConfig(socket: daemon.socketPath, port: port, deviceID: "acked", spool: "\(directory)/spool", in: directory)
        return try Fixtures.bridge(config: config, in: directory)
    }

    /// Shows each code in turn, waiting until the daemon has made its read, then nothing, so that
    /// no further read comes.
    func show(_ codes: [String], to daemon: DaemonProcess, from seq: Int) throws {
        try bench.show(codes, to: daemon, from: seq)
        try bench.camera.plug()
    }

    /// Asks `status` until `reads` reach `count` with nothing held, awaiting or dropped, or 20 s
    /// pass; returns the last status.
    static func settled(_ control: SocketClient, reads count: Int) -> [String: Any] {
        var status: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(20)
        repeat {
            status = control.command("status")?["status"] as? [String: Any] ?? [:]
            let counters = status["counters"] as? [String: Any] ?? [:]
            if counters["reads"] as? Int == count && status["held"] as? Int == 0 && status["awaiting"] as? Int == 0 { break }
            usleep(100_000)
        } while Date() < deadline
        return status
    }

    func expectEveryReadDelivered(_ status: [String: Any], reads count: Int, _ bridge: LoggedProcess) {
        let counters = status["counters"] as? [String: Any] ?? [:]
        #expect(counters["reads"] as? Int == count, "every read acked, so delivered: \(status)\n\(bridge.log)")
        #expect(status["held"] as? Int == 0 && status["awaiting"] as? Int == 0, "\(status)")
        #expect((counters["dropped"] as? [String: Int] ?? [:]).isEmpty, "none dropped: \(counters)")
    }

    @Test func everyReadIsAckedOnceSpooledAndReachesTheBrokerOnceInOrder() throws {
        let broker = try Broker()
        let subscriber = try Subscriber(port: broker.port, topics: ["kiosk-scanner/acked/scan"])
        let daemon = try daemon(socket: "")
        let control = try daemon.connectControl()
        let bridge = try bridge(daemon, port: broker.port)
        Fixtures.expectConnected(bridge)

        try show((1...5).map { "acked \($0)" }, to: daemon, from: 1)
        let seqs = MQTTTests.seqs(from: subscriber, through: 5)
        #expect(seqs == [1, 2, 3, 4, 5], "each read once, in order: \(seqs)")
        expectEveryReadDelivered(Self.settled(control, reads: 5), reads: 5, bridge)
        #expect(!bridge.log.contains("the daemon does not take acks"), "\(bridge.log)")
        #expect(bridge.stop() == 0)
    }

    /// Reads held while no consumer was there reach the bridge the moment it connects (with
    /// `consumer_after: 0`), before the reply to its `status`: spooled and acked all the same.
    @Test func readsWrittenBeforeTheStatusReplyAreSpooledAndAckedToo() throws {
        let broker = try Broker()
        let subscriber = try Subscriber(port: broker.port, topics: ["kiosk-scanner/acked/scan"])
        let daemon = try daemon(socket: "  consumer_after: 0\n")
        let control = try daemon.connectControl()
        try show((1...3).map { "held \($0)" }, to: daemon, from: 1)
        #expect(daemon.waitForLog("holding read 3"), "held: no consumer yet")

        let bridge = try bridge(daemon, port: broker.port)
        #expect(bridge.waitForLog("connected to the broker"), "\(bridge.log)")
        try show((4...5).map { "live \($0)" }, to: daemon, from: 4)
        let seqs = MQTTTests.seqs(from: subscriber, through: 5, timeout: 20)
        #expect(seqs == [1, 2, 3, 4, 5], "the held reads first, each once: \(seqs)")
        expectEveryReadDelivered(Self.settled(control, reads: 5), reads: 5, bridge)
        #expect(bridge.stop() == 0)
    }
}
