import ConfigReading
import ScannerProtocol

/// What the console runs with: the daemon's socket, the `web` section, and the limits of sign-in,
/// sessions and health polling (fixed in the program; tests shorten them).
public struct ConsoleSettings: Sendable {
    /// The daemon's socket (`socket.path`).
    public var socketPath: String
    /// The `web` section.
    public var web: WebConfig
    /// A failed sign-in is answered this much later: a password guesser gets one try a second.
    public var failedSignInDelay: Duration = .seconds(1)
    /// Failed sign-ins from one address within `failedSignInWindow` after which it is refused outright.
    public var failedSignInLimit = 10
    public var failedSignInWindow: Duration = .seconds(15 * 60)
    /// A session ends this long after sign-in, or this long after its last use, whichever comes first.
    public var sessionLifetime: Duration = .seconds(12 * 3600)
    public var sessionIdleTimeout: Duration = .seconds(30 * 60)
    /// How often the daemon's `status` is asked for, and how much of it the health charts keep.
    public var statusInterval: Duration = .seconds(5)
    public var historySpan: Duration = .seconds(3600)

    /// The settings of `config`, or why the console must not start with them.
    public init(_ config: ClientConfig) throws(ConsoleError) {
        guard config.socket.format == .json else {
            throw ConsoleError("socket.format is plain: the console needs the daemon's JSON events (socket.format: json)")
        }
        if let exposure = config.web.exposure { throw ConsoleError("web.listen: \(exposure)") }
        socketPath = config.socket.path
        web = config.web
    }
}

/// Why the console cannot start, as one line for the log and the terminal.
public struct ConsoleError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
