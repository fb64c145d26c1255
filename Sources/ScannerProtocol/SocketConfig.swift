import Codes

/// The UNIX socket a POS application connects to.
public struct SocketConfig: Sendable, Hashable {
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Newline-delimited JSON events.
        case json
        /// One code's text per line, for shell scripts.
        case plain
    }

    public var path = "/run/kiosk-scanner/scan.sock"
    /// File mode of the socket, e.g. 0o660.
    public var mode = 0o660
    /// Group that owns the socket, or nil to keep the daemon's.
    public var group: String?
    public var format = Format.json
    /// Reads held while no client is connected, delivered on the next connect.
    public var holdCount = 16
    /// Held reads older than this are dropped (and counted) instead of delivered.
    public var holdSeconds = 10.0
    /// Bytes queued for a client that does not read before it is disconnected.
    public var clientBufferBytes = 256 * 1024
    /// Clients connected at once; one more is told so and closed. Also kept below the descriptor limit.
    public var maxClients = 64
    /// Bytes queued for all clients together; past it the client with the longest queue is cut off.
    public var maxQueuedBytes = 8 << 20
    /// A client consumes scans (reads are written to it) once it sends `subscribe`, or once it has
    /// been connected this long without sending `unsubscribe` (what the CLI's tools send first).
    public var consumerAfterSeconds = 0.5
    /// The group (besides root) whose members may send control commands and see camera images.
    public var controlGroup: String?
    /// Whether `snapshot` and `record` may show camera images at all.
    public var images = true
    /// GTIN options and rules for the data the socket sends: the plain line, and `formatted` in JSON.
    public var formatting = Formatting()
    /// Whether a read is delivered when a consumer read it, or only when a consumer acked it.
    public var acknowledge = Acknowledge.none
    /// With `acknowledge: required`, how long a consumer has to ack a read written to it.
    public var ackTimeoutSeconds = 2.0
    /// How long a read written to consumers may stay unread by all of them before it is held again
    /// (or goes to the next consumer).
    public var readTimeoutSeconds = 2.0
    /// The group (besides root) whose members may consume scans; nil: anyone who can open the socket.
    public var consumerGroup: String?

    /// When a read written to a consumer counts as delivered.
    public enum Acknowledge: String, Sendable, Hashable, CaseIterable {
        /// Once the consumer's process has read its line (the kernel's unread count for the socket).
        case none
        /// Once the consumer answered `ack SEQ`.
        case required
    }
    /// Control characters in the data the socket sends: kept by default, since socket clients are
    /// programs that take the data as it was encoded (JSON escapes them in any case).
    public var controlCharacters = ControlCharacters.keep

    public init() {}
}
