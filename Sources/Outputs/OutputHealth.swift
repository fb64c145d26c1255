/// How an output is doing: whether it can send, and what became of the reads it took. The daemon
/// shows it in `status` and the metrics.
public struct OutputHealth: Sendable, Equatable {
    /// Whether the output can send, and if not, why.
    public enum State: Sendable, Equatable {
        /// The device is open and takes reads.
        case ok
        /// The device is missing or not ready: reads wait, within the queue's bounds.
        case waiting(String)
        /// The device is there but did not take a read.
        case error(String)
    }

    public var state: State
    public var sent = 0
    /// Reads given up, by reason.
    public var failed: [String: Int] = [:]
    /// Reads a formatting rule sent as nothing (handled, not failed).
    public var filtered = 0
    /// Reads waiting in the queue.
    public var queued = 0

    public init(state: State) { self.state = state }
}
