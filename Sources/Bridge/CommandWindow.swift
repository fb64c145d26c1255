import ScannerProtocol

/// The bridge's side of the socket's command protocol, without the socket: the daemon answers
/// every line with one reply, in order, so the lines sent and not yet answered are kept in order
/// (`waiting`) and each reply goes to the first of them.
///
/// Commands from the broker are flow-controlled to the daemon's pace: at most `window` of them
/// are at the daemon at once (so its replies can never pile up to `socket.client_buffer`), at most
/// `capacity` more wait here, and past that a command is refused as busy at once. Every command
/// taken is answered: by its reply, or, when the connection goes, by `lost()`.
struct CommandWindow {
    /// Who a line sent to the daemon was for.
    enum Asker: Equatable {
        /// The link itself: `status`, `subscribe`.
        case link(String)
        /// The broker, with its command line.
        case broker(String)
        /// `ack SEQ` for a read safely in the spool.
        case ack(UInt64)
        /// The `unsubscribe` of a stop: every read written before its reply has been taken.
        case drain

        /// The command's name, as the daemon's reply echoes it in `command`.
        var name: String {
            switch self {
            case .link(let line), .broker(let line): (try? Command.parse(line).get())?.name ?? String(line.prefix { $0 != " " }).lowercased()
            case .ack: "ack"
            case .drain: "unsubscribe"
            }
        }
    }

    /// What became of a command from the broker.
    enum Submitted: Equatable {
        /// Send this line now.
        case send
        /// It waits for room in the window.
        case queued
        /// Refused: the window and the queue are full.
        case busy
    }

    let window: Int
    let capacity: Int
    /// Lines sent, oldest first, each waiting for its reply.
    private(set) var waiting: [Asker] = []
    /// Broker commands not sent yet.
    private(set) var queued: [String] = []
    private var outstanding = 0

    init(window: Int, capacity: Int) {
        self.window = window
        self.capacity = capacity
    }

    /// A line the link sends on its own (status, subscribe, ack, drain).
    mutating func sent(_ asker: Asker) {
        waiting.append(asker)
    }

    /// A command from the broker: send it, keep it, or refuse it.
    mutating func submit(_ command: String) -> Submitted {
        if outstanding < window && queued.isEmpty {
            outstanding += 1
            waiting.append(.broker(command))
            return .send
        }
        guard queued.count < capacity else { return .busy }
        queued.append(command)
        return .queued
    }

    /// A reply came, naming `command` if it did (an error reply to a line the daemon could not
    /// parse names none). Returns who it is for, or nil for a reply nobody waits for; `skipped`:
    /// lines the daemon left unanswered, which a named reply to a later line shows; `next`:
    /// broker commands to send now that the window has room (already counted as sent).
    mutating func reply(command: String?) -> (asker: Asker?, skipped: [Asker], next: [String]) {
        var skipped: [Asker] = []
        if let command, waiting.first?.name != command {
            // Replies come in order: a reply named for a later line means the ones before it got
            // none; a name nobody waits for is a reply to no line of ours.
            guard let match = waiting.firstIndex(where: { $0.name == command }) else { return (nil, [], []) }
            skipped = Array(waiting[..<match])
            waiting.removeFirst(match)
        }
        guard !waiting.isEmpty else { return (nil, skipped, []) }
        let asker = waiting.removeFirst()
        outstanding -= ([asker] + skipped).filter { if case .broker = $0 { true } else { false } }.count
        var next: [String] = []
        while outstanding < window, !queued.isEmpty {
            let command = queued.removeFirst()
            outstanding += 1
            waiting.append(.broker(command))
            next.append(command)
        }
        return (asker, skipped, next)
    }

    /// The connection is gone: the broker commands sent and not answered (`unanswered`: they may
    /// have been carried out) and those never sent (`unsent`). The window starts empty again.
    mutating func lost() -> (unanswered: [String], unsent: [String]) {
        let unanswered = waiting.compactMap { asker -> String? in
            if case .broker(let command) = asker { command } else { nil }
        }
        let unsent = queued
        waiting.removeAll()
        queued.removeAll()
        outstanding = 0
        return (unanswered, unsent)
    }
}
