import CMosquitto
import Codes
import FoundationEssentials
import Logging
import Platform
import ScannerProtocol
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The MQTT bridge: reads from the daemon's socket go to `PREFIX/DEVICE/scan` through the spool,
/// the daemon's state to the retained `state`, `availability` says online (and the broker's last
/// will says offline), and commands on `cmd` that the config allows go to the daemon, their
/// replies to `cmd/reply` (`Bridge+Commands.swift`). One thread drives the broker connection; the
/// daemon link has its own.
public final class Bridge: Sendable {
    public let settings: MQTTSettings
    let spool: Spool
    let logger: Logger
    private let stopping = Atomic<Bool>(false)
    /// What the daemon link hands over to the broker thread.
    let inbox = Mutex(Inbox())
    private let health = Mutex(Health())
    /// Broker commands refused as busy since the last one taken (logged once per spell).
    let busyRefusals = Atomic<Int>(0)
    /// A pipe whose read end wakes the broker thread when the daemon link has something for it.
    private let wake: (read: Int32, write: Int32)

    struct Inbox {
        var replies: [(topic: String, payload: [UInt8])] = []
        var stateChanged = false
        var daemonState: StateEvent?
        var counters: CounterSnapshot?
        var bootID: String?
    }

    /// Both connections and their losses, for `state` and the metrics.
    struct Health: Codable {
        var broker = "connecting"
        var brokerDetail: String?
        var daemon = "connecting"
        var daemonDetail: String?
        var brokerLosses = 0
        var daemonLosses = 0

        enum CodingKeys: String, CodingKey {
            case broker
            case brokerDetail = "broker_detail"
            case daemon
            case daemonDetail = "daemon_detail"
            case brokerLosses = "broker_losses"
            case daemonLosses = "daemon_losses"
        }
    }

    public init(settings: MQTTSettings, logger: Logger) throws(BridgeError) {
        self.settings = settings
        self.logger = logger
        spool = try Spool(directory: settings.spoolDirectory, limit: settings.spoolBytes, scanTopic: Topics(base: settings.base).scan, logger: logger)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BridgeError("pipe: \(String(cString: strerror(errno)))") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = (ends[0], ends[1])
        // Named at start even when empty: without spool_dir, where it is depends on how the bridge
        // was started.
        let waiting = spool.counts.queued
        logger.info(
            "\(waiting > 0 ? "\(waiting) reads from an earlier run wait" : "no reads from an earlier run") in the spool \(settings.spoolDirectory)")
    }

    var topics: Topics { Topics(base: settings.base) }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wakeUp()
    }

    /// Wakes the broker thread from its poll.
    func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Runs until `stop()`; then says offline and disconnects.
    public func run() {
        let link = DaemonLink(path: settings.socketPath, handlers: daemonHandlers(), logger: logger)
        link.start()
        var session: Session?
        var backoff = 1.0
        var nextAttempt = 0.0
        var lastRefusal: String?
        var lastPoll = 0.0
        var lastMetrics = 0.0
        var metricsProblem: String?
        /// Writes the textfile; a failure is logged when it starts and when it clears.
        func metrics() {
            let problem = writeMetrics()
            if problem != metricsProblem {
                if let problem { logger.error("metrics textfile: \(problem)") } else if metricsProblem != nil { logger.info("metrics textfile written again") }
                metricsProblem = problem
            }
        }
        /// No connection (none made, refused or lost): logged when the reason changes, counted as a
        /// loss when one was up, and tried again after the backoff.
        func failed(_ problem: String, state: String, next: String, now: Double) {
            if problem != lastRefusal { logger.warning("broker \(settings.host):\(settings.port): \(problem); \(next)") }
            lastRefusal = problem
            health.withLock {
                if $0.broker == "connected" { $0.brokerLosses += 1 }
                $0.broker = state
                $0.brokerDetail = problem
            }
            session = nil
            nextAttempt = now + backoff
            backoff = min(backoff * 2, 30)
        }
        while !stopping.load(ordering: .relaxed) {
            let now = Self.now()
            if now - lastPoll >= 10 {
                link.pollStatus()
                lastPoll = now
            }
            if now - lastMetrics >= 10 {
                metrics()
                lastMetrics = now
            }
            guard let current = session else {
                guard now >= nextAttempt else {
                    usleep(20_000)
                    continue
                }
                switch connect(link) {
                case .success(let made): session = made
                case .failure(let problem): failed(problem.description, state: "unreachable", next: "retrying", now: now)
                }
                continue
            }
            let rc = current.connection.loop(milliseconds: 100, wake: wake.read)
            if let refusal = current.refusal ?? (rc != 0 ? current.lostReason(rc) : nil) {
                failed(refusal, state: "lost", next: "reconnecting", now: now)
                continue
            }
            guard current.connected else { continue }
            if !current.announced {
                logger.info("connected to the broker \(settings.host):\(settings.port) as \(settings.deviceID)")
                current.announced = true
                lastRefusal = nil
                backoff = 1
                health.withLock {
                    $0.broker = "connected"
                    $0.brokerDetail = nil
                }
                inbox.withLock { $0.stateChanged = true }
            }
            pump(current, link: link)
        }
        // Reads the daemon wrote before the stop go to the spool, for the next run; the commands
        // it had not answered get their replies.
        link.stop()
        if let session, session.connected {
            for reply in inbox.withLock({ $0.replies }) {
                _ = session.connection.publish(topic: reply.topic, payload: reply.payload, qos: settings.qos, retain: false)
            }
            _ = session.connection.publish(topic: topics.availability, payload: Array("offline".utf8), qos: 1, retain: true)
            for _ in 0..<10 { _ = session.connection.loop(milliseconds: 20, wake: wake.read) }
            session.connection.disconnect()
            _ = session.connection.loop(milliseconds: 20, wake: wake.read)
        }
        metrics()
    }

    /// One connection's state on the broker thread.
    final class Session {
        let connection: MQTTConnection
        var connected = false
        /// The connection was logged and reported in `state`.
        var announced = false
        /// Why the broker refused us (CONNACK), once it did.
        var refusal: String?
        /// Spool messages published on this connection, by message id, not yet acknowledged.
        var inflight: [Int32: UInt64] = [:]
        /// The last spool message published on this connection.
        var lastSent: UInt64?
        /// libmosquitto's last error line: a TLS failure's reason.
        var lastLog: String?
        /// The CA file, named when TLS fails.
        let caFile: String?

        init(connection: MQTTConnection, caFile: String?) {
            self.connection = connection
            self.caFile = caFile
        }

        func lostReason(_ rc: Int32) -> String {
            var reason = connected ? "connection lost: \(MQTTConnection.describe(rc))" : "could not connect: \(MQTTConnection.describe(rc))"
            if let lastLog { reason += " (\(lastLog))" }
            if let caFile, rc == MOSQ_ERR_TLS.rawValue || lastLog?.contains("SSL") == true {
                reason += "; is the broker's certificate signed by the CA in ca_file \(caFile), and made out to the host named?"
            }
            return reason
        }
    }

    /// Spool messages in flight at once on a connection.
    static let window = 32

    private func connect(_ link: DaemonLink) -> Result<Session, BridgeError> {
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(clientID: "kiosk-scanner-\(settings.deviceID)", config: settings, will: (topics.availability, "offline"))
        } catch {
            return .failure(error)
        }
        let session = Session(connection: connection, caFile: settings.caFile)
        connection.onLog = { [weak session] line in session?.lastLog = line }
        connection.onConnect = { [weak session, self] rc in
            guard let session else { return }
            guard rc == 0 else {
                session.refusal = "refused: \(MQTTConnection.describeRefusal(rc))"
                return
            }
            session.connected = true
            _ = connection.publish(topic: topics.availability, payload: Array("online".utf8), qos: 1, retain: true)
            connection.subscribe(topics.command, qos: 1)
            if settings.homeAssistant {
                for (topic, payload) in HomeAssistant.discovery(settings: settings, topics: topics) {
                    _ = connection.publish(topic: topic, payload: payload, qos: 1, retain: true)
                }
            }
        }
        connection.onPublish = { [weak session, spool] mid in
            guard let session, let id = session.inflight.removeValue(forKey: mid) else { return }
            spool.remove(id)
        }
        connection.onMessage = { [self] topic, payload in
            guard topic == topics.command else { return }
            command(payload, link: link)
        }
        let rc = connection.connect(host: settings.host, port: settings.port, keepalive: settings.keepalive)
        guard rc == 0 else { return .failure(BridgeError(session.lostReason(rc))) }
        return .success(session)
    }

    /// Publishes what is due: spool messages in order within the window, replies, and the state.
    private func pump(_ session: Session, link: DaemonLink) {
        let room = Self.window - session.inflight.count
        if room > 0 {
            sending: for entry in spool.entries(after: session.lastSent, count: room) {
                switch session.connection.publish(topic: topics.scan, payload: entry.payload, qos: settings.qos, retain: false) {
                case .success(let mid):
                    session.inflight[mid] = entry.id
                    session.lastSent = entry.id
                case .failure(let problem) where problem.refusesMessage:
                    // This message can never go: aside with it, so that those behind it do.
                    spool.setAside(entry.id, reason: "refused by the MQTT client library (\(problem))")
                case .failure:
                    break sending
                }
            }
        }
        let (replies, state) = inbox.withLock { inbox -> ([(topic: String, payload: [UInt8])], [UInt8]?) in
            defer {
                inbox.replies.removeAll()
                inbox.stateChanged = false
            }
            return (inbox.replies, inbox.stateChanged ? statePayload(inbox) : nil)
        }
        for reply in replies { _ = session.connection.publish(topic: reply.topic, payload: reply.payload, qos: settings.qos, retain: false) }
        if let state { _ = session.connection.publish(topic: topics.state, payload: state, qos: settings.qos, retain: true) }
        _ = session.connection.flush()
    }

    private func daemonHandlers() -> DaemonLink.Handlers {
        DaemonLink.Handlers(
            scan: { [self] line, bootID in
                // The event as the socket sent it, with the device and the daemon's boot id in front.
                let payload = Array("{\"boot_id\":\"\(bootID)\",\"device\":\"\(settings.deviceID)\",".utf8) + line.dropFirst()
                let (dropped, stored) = spool.append(payload: payload)
                wakeUp()
                if !dropped.isEmpty {
                    logger.warning("spool full (\(settings.spoolBytes) bytes): \(dropped.count) oldest reads dropped")
                    inbox.withLock { $0.stateChanged = true }
                }
                return stored
            },
            state: { [self] state in
                inbox.withLock {
                    $0.daemonState = state
                    $0.stateChanged = true
                }
            },
            status: { [self] status in
                inbox.withLock {
                    $0.counters = status.counters
                    $0.bootID = status.bootID
                }
            },
            reply: { [self] command, answer in
                switch answer {
                case .replied(let line): forward(line, to: command)
                case .failed(let problem): reply(to: command, ok: false, error: problem)
                }
                wakeUp()
            },
            connection: { [self] up, problem in
                health.withLock {
                    if !up && $0.daemon == "connected" { $0.daemonLosses += 1 }
                    $0.daemon = up ? "connected" : "lost"
                    $0.daemonDetail = problem
                }
                inbox.withLock { $0.stateChanged = true }
            })
    }

    /// The retained `state` message: the daemon's state and counters, and the bridge's own.
    private func statePayload(_ inbox: Inbox) -> [UInt8] {
        let payload = StatePayload(
            device: settings.deviceID, bootID: inbox.bootID, scanner: inbox.daemonState, counters: inbox.counters,
            bridge: health.withLock { $0 }, spool: spool.counts, time: UTCTime(Date()).iso8601)
        return (try? JSONEncoder.forEvents().encode(payload)).map(Array.init) ?? []
    }

    /// Writes the textfile whole (`AtomicFile`: never through a planted symlink); the reason on failure.
    private func writeMetrics() -> String? {
        guard let path = settings.metricsTextfile else { return nil }
        let text = BridgeMetrics.text(health: health.withLock { $0 }, spool: spool.counts)
        do throws(Errno) {
            try AtomicFile.write(Array(text.utf8), to: path)
            return nil
        } catch {
            return "cannot write \(path): \(error.description)"
        }
    }

    static func jsonString(_ text: String) -> String {
        (try? String(decoding: JSONEncoder().encode(text), as: UTF8.self)) ?? "\"\""
    }

    static func now() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }
}
