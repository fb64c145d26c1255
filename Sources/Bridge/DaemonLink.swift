import Dispatch
import FoundationEssentials
import Logging
import Platform
import ScannerProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The bridge's connection to the daemon's socket, as a client like any other: it asks for
/// `status` (the daemon's boot id and counters), subscribes to scans, hands each line on, and
/// answers each read it has safely spooled with `ack SEQ`. Commands from the broker go through a
/// `CommandWindow`, at the daemon's pace. It reconnects by itself, with backoff, when the daemon is
/// not there or goes away.
final class DaemonLink: Sendable {
    /// What comes from the daemon.
    struct Handlers: Sendable {
        /// A scan event line, with the boot id of the daemon that sent it; returns whether the read
        /// is safely kept (then the daemon is told, `ack SEQ`).
        var scan: @Sendable (_ line: [UInt8], _ bootID: String) -> Bool
        /// The daemon's state, on every change and at each status poll.
        var state: @Sendable (StateEvent) -> Void
        var status: @Sendable (StatusReply) -> Void
        /// The answer to a command the broker sent: the daemon's reply line, or why there is none.
        var reply: @Sendable (_ command: String, _ answer: Answer) -> Void
        /// Whether the daemon is connected; and why not.
        var connection: @Sendable (_ up: Bool, _ problem: String?) -> Void
    }

    /// What a broker command got.
    enum Answer: Sendable {
        case replied([UInt8])
        case failed(String)
    }

    /// Broker commands at the daemon at once: their replies (a `metrics` reply is the largest, a
    /// few KiB) stay far below the smallest `socket.client_buffer`'s worth.
    static let window = 8
    /// Broker commands waiting for room in the window; more are refused as busy.
    static let queueCapacity = 256
    /// Scans kept while the status reply is awaited: as many as a daemon may hold (`hold_count`
    /// is at most 10,000); a daemon that sends more without replying is reconnected to.
    static let earlyCapacity = 10_000

    private let path: String
    private let handlers: Handlers
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// The open connection, and the lines sent to it that wait for a reply.
    private let current = Mutex<(lines: SocketLines?, commands: CommandWindow)>((nil, DaemonLink.emptyWindow))
    private static var emptyWindow: CommandWindow { CommandWindow(window: window, capacity: queueCapacity) }

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
    /// (`unsubscribe`, then the lines up to its reply), or after `timeout` seconds. Without acks
    /// the daemon counts a read delivered once we have read its line off the socket, so none read
    /// may be left unspooled; with `socket.acknowledge: required` it counts one delivered when its
    /// ack comes, once it is spooled, and holds the others again when we are gone.
    func stop(timeout: Double = 3) {
        stopping.store(true, ordering: .relaxed)
        let draining = current.withLock { state -> Bool in
            guard let lines = state.lines else { return false }
            state.commands.sent(.drain)
            lines.send("unsubscribe")
            return true
        }
        if !draining || finished.wait(timeout: .now() + timeout) == .timedOut {
            current.withLock { $0.lines?.shutdown() }
            _ = finished.wait(timeout: .now() + 1)
        }
    }

    /// Takes a command the broker asked for: sent now, queued behind the window, or refused as
    /// busy; nil when the daemon is not connected.
    func submit(command: String) -> CommandWindow.Submitted? {
        current.withLock { state in
            guard let lines = state.lines else { return nil }
            let outcome = state.commands.submit(command)
            if outcome == .send { lines.send(command) }
            return outcome
        }
    }

    /// Asks for the daemon's status (counters for the `state` topic).
    func pollStatus() {
        send(.link("status"))
    }

    /// Sends a line of the link's own, if connected.
    private func send(_ asker: CommandWindow.Asker) {
        current.withLock { state in
            guard let lines = state.lines else { return }
            state.commands.sent(asker)
            switch asker {
            case .link(let line): lines.send(line)
            case .ack(let seq): lines.send("ack \(seq)")
            case .drain: lines.send("unsubscribe")
            case .broker: preconditionFailure("broker commands go through submit")
            }
        }
    }

    private func run() {
        defer { finished.signal() }
        var backoff = 0.5
        var lastProblem: String?
        var acksRefused = false
        while !stopping.load(ordering: .relaxed) {
            let lines: SocketLines
            do {
                lines = try SocketLines(path: path)
            } catch {
                let problem = "daemon socket \(path): \(error.description)"
                if problem != lastProblem {
                    logger.warning("\(problem); retrying")
                    handlers.connection(false, problem)
                    lastProblem = problem
                }
                usleep(UInt32(backoff * 1e6))
                backoff = min(backoff * 2, 5)
                continue
            }
            current.withLock { $0 = (lines, Self.emptyWindow) }
            send(.link("status"))
            var bootID: String?
            // Scans before the status reply, which gives their boot id: a daemon writes its held
            // reads to a new connection at once with `socket.consumer_after: 0`. Kept, in order,
            // and spooled and acked once the reply is in. Dropped, they would be lost without a
            // trace: the next read's ack covers every read written before it, so the daemon
            // would count them delivered. Should the connection go before the reply, they were
            // never acked, and the daemon holds them again for the next consumer.
            var early: [EventLine] = []
            func take(_ scan: EventLine, bootID: String) {
                if handlers.scan(Array(scan.line), bootID), let seq = scan.decode(ScanSequence.self)?.seq { send(.ack(seq)) }
            }
            reading: while let event = lines.nextEvent() {
                switch event.envelope.type {
                case "scan":
                    if let bootID {
                        take(event, bootID: bootID)
                    } else if early.count < Self.earlyCapacity {
                        early.append(event)
                    } else {
                        logger.warning("the daemon sent \(early.count) scans and no reply to status; reconnecting")
                        break reading
                    }
                case "state":
                    if let state = event.decode(StateEvent.self) { handlers.state(state) }
                case "reply":
                    let (asker, skipped, _) = current.withLock { state in
                        let taken = state.commands.reply(command: event.envelope.command)
                        for command in taken.next { lines.send(command) }
                        return taken
                    }
                    if !skipped.isEmpty {
                        logger.warning("the daemon sent no reply to \(skipped.count) lines (\(skipped.map(\.name).joined(separator: ", ")))")
                        for case .broker(let command) in skipped { handlers.reply(command, .failed("the scanner daemon sent no reply to it")) }
                    }
                    switch asker {
                    case .drain:
                        break reading
                    case .broker(let command):
                        handlers.reply(command, .replied(Array(event.line)))
                    case .ack(let seq):
                        // A daemon that predates `ack` answers it as an unknown command: harmless.
                        let reply = event.decode(Reply.self)
                        logger.debug("ack \(seq): \(reply?.ok == true ? "taken" : LogText.escaped(reply?.error ?? "refused", limit: 60))")
                        if reply?.ok != true && !acksRefused {
                            acksRefused = true
                            logger.info(
                                "the daemon does not take acks (\(LogText.escaped(reply?.error ?? "refused", limit: 60))); reads are spooled all the same")
                        }
                    case .link, nil:
                        guard event.envelope.command == "status", let reply = event.decode(Reply.self), let status = reply.status else { break }
                        if bootID == nil {
                            let id = status.bootID ?? "unknown"
                            bootID = id
                            send(.link("subscribe"))
                            logger.info("connected to the daemon at \(path)", metadata: ["boot_id": "\(id)"])
                            lastProblem = nil
                            backoff = 0.5
                            handlers.connection(true, nil)
                            for scan in early { take(scan, bootID: id) }
                            early = []
                        }
                        handlers.status(status)
                        handlers.state(status.state)
                    }
                default:
                    break
                }
            }
            let lost = current.withLock { state in
                defer { state = (nil, Self.emptyWindow) }
                return state.commands.lost()
            }
            // Every command taken gets an answer, also when the daemon goes away under it.
            for command in lost.unanswered {
                handlers.reply(command, .failed("the connection to the scanner daemon was lost before it answered; the command may have been carried out"))
            }
            for command in lost.unsent { handlers.reply(command, .failed("the connection to the scanner daemon was lost before the command was sent")) }
            guard !stopping.load(ordering: .relaxed) else { break }
            let problem = "daemon socket \(path): connection closed"
            logger.warning("\(problem); reconnecting")
            handlers.connection(false, problem)
            lastProblem = problem
            usleep(UInt32(backoff * 1e6))
        }
    }

    /// A scan event's `seq`, for its ack.
    private struct ScanSequence: Decodable {
        let seq: UInt64
    }
}
