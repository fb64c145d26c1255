import Platform
import Synchronization

/// Someone signed in to the console: who, whether they may use the controls, and the random id
/// their browser holds in its cookie.
public struct Session: Sendable, Hashable {
    public let id: String
    public let user: String
    /// Whether `web.control_users` names the user; the daemon is then not asked to `restrict` the
    /// viewer's connection (it still decides by the console's own rights on its socket).
    public let mayControl: Bool
    let started: Instant
    var lastUsed: Instant
}

/// The open sessions: made at sign-in, ended at sign-out, or after `lifetime` since sign-in or
/// `idleTimeout` since last use.
final class Sessions: Sendable {
    private let open = Mutex<[String: Session]>([:])
    private let lifetime: Duration
    private let idleTimeout: Duration
    private let now: @Sendable () -> Instant

    init(lifetime: Duration, idleTimeout: Duration, now: @escaping @Sendable () -> Instant = { Instant.now() }) {
        self.lifetime = lifetime
        self.idleTimeout = idleTimeout
        self.now = now
    }

    /// A new session for `user`, with an id of 32 random bytes (the system's secure generator).
    func start(user: String, mayControl: Bool) -> Session {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in hex(generator.next() as UInt64) }.joined()
        let time = now()
        let session = Session(id: id, user: user, mayControl: mayControl, started: time, lastUsed: time)
        open.withLock { sessions in
            sessions = sessions.filter { isLive($0.value, at: time) }
            sessions[id] = session
        }
        return session
    }

    /// The live session with this id, now counted as used; nil for an unknown or expired id.
    func use(_ id: String) -> Session? {
        let time = now()
        return open.withLock { sessions in
            guard let session = sessions[id] else { return nil }
            guard isLive(session, at: time) else {
                sessions[id] = nil
                return nil
            }
            sessions[id]?.lastUsed = time
            return sessions[id]
        }
    }

    /// Ends the session (sign-out).
    func end(_ id: String) {
        _ = open.withLock { $0.removeValue(forKey: id) }
    }

    /// Sessions open now.
    var count: Int { open.withLock { $0.count } }

    private func isLive(_ session: Session, at time: Instant) -> Bool {
        time - session.started < lifetime && time - session.lastUsed < idleTimeout
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
