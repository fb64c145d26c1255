import Synchronization

/// The daemon's counters, shared by capture and the socket; `status` and metrics read them.
public final class Counters: Sendable {
    /// A copy of the counters at one moment.
    public struct Snapshot: Sendable, Codable, Equatable {
        /// Codes found in frames, before tracking: reads + duplicates + dropped + held (see `status`).
        public var detections = 0
        /// Reads delivered to at least one client (a read not delivered is counted under `dropped`).
        public var reads = 0
        public var readsBySymbology: [String: Int] = [:]
        /// Detections of a code already reported and still in view.
        public var duplicates = 0
        /// Reads not delivered to any client, by reason.
        public var dropped: [String: Int] = [:]
        /// Times the camera came back after being lost.
        public var reconnects = 0
        /// Clients connected now.
        public var clients = 0
        /// Connections refused: the client limit, or too few descriptors left.
        public var clientsRefused = 0
        public var torchSwitchOns = 0
        /// Frames decoded, and frames skipped because a newer one was ready.
        public var framesDecoded = 0
        public var framesSkipped = 0
        /// Frames not decoded because the viewport had not changed.
        public var framesGated = 0
        /// Decode times: counts per bucket of `Counters.decodeBuckets` (the last is +Inf), and their sum.
        public var decodeHistogram = [Int](repeating: 0, count: Counters.decodeBuckets.count + 1)
        public var decodeSeconds = 0.0

        /// The decode time under which `fraction` of decodes fell, as a bucket's upper bound.
        public func decodeQuantile(_ fraction: Double) -> Double? {
            let total = decodeHistogram.reduce(0, +)
            guard total > 0 else { return nil }
            var seen = 0
            for (index, count) in decodeHistogram.enumerated() {
                seen += count
                if Double(seen) >= fraction * Double(total) {
                    return index < Counters.decodeBuckets.count ? Counters.decodeBuckets[index] : .infinity
                }
            }
            return .infinity
        }

        enum CodingKeys: String, CodingKey {
            case detections, reads, readsBySymbology = "reads_by_symbology", duplicates, dropped, reconnects, clients
            case clientsRefused = "clients_refused"
            case torchSwitchOns = "torch_switch_ons", framesDecoded = "frames_decoded", framesSkipped = "frames_skipped", framesGated = "frames_gated"
            case decodeHistogram = "decode_histogram", decodeSeconds = "decode_seconds"
        }
    }

    /// Upper bounds, in seconds, of the decode-time histogram buckets.
    public static let decodeBuckets: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1]

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
