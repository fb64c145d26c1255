import ScannerProtocol
import Synchronization

/// The daemon's counters, shared by capture and the socket; `status` and metrics read them.
public final class Counters: Sendable {
    /// A copy of the counters at one moment (the protocol's type: `status` sends it).
    public typealias Snapshot = CounterSnapshot

    /// Upper bounds, in seconds, of the decode-time histogram buckets.
    public static var decodeBuckets: [Double] { CounterSnapshot.decodeBuckets }

    private let state = Mutex(Snapshot())

    public init() {}

    /// Changes the counters under the lock.
    public func update(_ change: (inout Snapshot) -> Void) {
        state.withLock { change(&$0) }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Counts one decode that took `seconds`.
    public func recordDecode(seconds: Double) {
        let bucket = Self.decodeBuckets.firstIndex { seconds <= $0 } ?? Self.decodeBuckets.count
        update {
            $0.decodeHistogram[bucket] += 1
            $0.decodeSeconds += seconds
        }
    }
}
