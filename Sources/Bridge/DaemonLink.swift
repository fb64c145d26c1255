import Dispatch
import FoundationEssentials
import Logging
import ScannerCore
import ScannerProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The bridge's connection to the daemon's socket, as a client like any other: it asks for
/// `status` (the daemon's boot id and counters), subscribes to scans, and hands each line on. It
/// reconnects by itself, with backoff, when the daemon is not there or goes away.
final class DaemonLink: Sendable {
    /// What comes from the daemon.
    struct Handlers: Sendable {
        /// A scan event line, with the boot id of the daemon that sent it.
        var scan: @Sendable (_ line: [UInt8], _ bootID: String) -> Void
        /// The daemon's state, on every change and at each status poll.
        var state: @Sendable (StateEvent) -> Void
        var status: @Sendable (StatusReply) -> Void
        /// The reply to a command the broker sent, with the command line.
        var reply: @Sendable (_ line: [UInt8], _ command: String) -> Void
        /// Whether the daemon is connected; and why not.
        var connection: @Sendable (_ up: Bool, _ problem: String?) -> Void
    }

    private let path: String
    private let handlers: Handlers
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Who waits for each reply, in order.
    enum Asker: Sendable {
        /// The link itself: status, subscribe.
        case link
        /// The broker, with its command line.
        case broker(String)
        /// The `unsubscribe` of a stop: every read written before its reply has been taken.
        case drain
    }

    /// The open connection, and who waits for each reply in order.
    private let current = Mutex<(lines: SocketLines?, waiting: [Asker])>((nil, []))

    init(path: String, handlers: Handlers, logger: Logger) {
        self.path = path
        self.handlers = handlers
        self.logger = logger
    }

    /// Runs on a thread of its own until `stop()`.
    func start() {
        OwnThread.start(name: "daemon-link") { [self] in run() }
    }

    /// Stops taking reads and returns once those the daemon already wrote to us are handed over
    /// (`unsubscribe`, then the lines up to its reply), or after `timeout` seconds: the daemon
    /// counts a read as delivered once written, so none may be left unread in the socket.
    func stop(timeout: Double = 3) {
        stopping.store(true, ordering: .relaxed)
        let draining = current.withLock { state -> Bool in
            guard let lines = state.lines else { return false }
            state.waiting.append(.drain)
            lines.send("unsubscribe")
            return true
        }
        if !draining || finished.wait(timeout: .now() + timeout) == .timedOut {
            current.withLock { $0.lines?.shutdown() }
            _ = finished.wait(timeout: .now() + 1)
        }
    }

    /// Sends a command the broker asked for; false when the daemon is not connected.
    func send(command: String) -> Bool {
        current.withLock { state in
            guard let lines = state.lines else { return false }
            state.waiting.append(.broker(command))
            lines.send(command)
            return true
        }
    }

    /// Asks for the daemon's status (counters for the `state` topic).
    func pollStatus() {
        current.withLock { state in
            guard let lines = state.lines else { return }
            state.waiting.append(.link)
            lines.send("status")
        }
    }

    private func run() {
        defer { finished.signal() }
        var backoff = 0.5
        var lastProblem: String?
        while !stopping.load(ordering: .relaxed) {
            guard let lines = SocketLines(path: path) else {
                let problem = "daemon socket \(path): \(String(cString: strerror(errno)))"
                if problem != lastProblem {
                    logger.warning("\(problem); retrying")
                    handlers.connection(false, problem)
                    lastProblem = problem
                }
                usleep(UInt32(backoff * 1e6))
                backoff = min(backoff * 2, 5)
                continue
            }
            current.withLock { $0 = (lines, [.link]) }
            lines.send("status")
            var bootID: String?
            reading: while let event = lines.nextEvent() {
                switch event.envelope.type {
                case "scan":
                    // Never before the status reply: subscribe goes out only after it.
                    if let bootID { handlers.scan(Array(event.line), bootID) }
                case "state":
                    if let state = event.decode(StateEvent.self) { handlers.state(state) }
                case "reply":
                    let asker = current.withLock { $0.waiting.isEmpty ? Asker.link : $0.waiting.removeFirst() }
                    if case .drain = asker { break reading }
                    if case .broker(let command) = asker {
                        handlers.reply(Array(event.line), command)
                    } else if event.envelope.command == "status", let reply = event.decode(Reply.self), let status = reply.status {
                        if bootID == nil {
                            bootID = status.bootID ?? "unknown"
                            current.withLock { $0.waiting.append(.link) }
                            lines.send("subscribe")
                            logger.info("connected to the daemon at \(path)", metadata: ["boot_id": "\(bootID!)"])
                            lastProblem = nil
                            backoff = 0.5
                            handlers.connection(true, nil)
                        }
                        handlers.status(status)
                        handlers.state(status.state)
                    }
                default:
                    break
                }
            }
            current.withLock { $0 = (nil, []) }
            guard !stopping.load(ordering: .relaxed) else { break }
            let problem = "daemon socket \(path): connection closed"
            logger.warning("\(problem); reconnecting")
            handlers.connection(false, problem)
            lastProblem = problem
            usleep(UInt32(backoff * 1e6))
        }
    }
}
