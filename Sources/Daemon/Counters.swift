import Synchronization

/// The daemon's counters, shared by capture and the socket; `status` and metrics read them.
public final class Counters: Sendable {
    /// A copy of the counters at one moment.
    public struct Snapshot: Sendable, Codable, Equatable {
        /// Codes found in frames, before tracking: reads + duplicates.
        public var detections = 0
        /// Reads reported (each delivered, or dropped and counted under `dropped`).
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
        public var torchSwitchOns = 0
        /// Frames decoded, and frames skipped because a newer one was ready.
        public var framesDecoded = 0
        public var framesSkipped = 0
        /// Frames not decoded because the viewport had not changed.
        public var framesGated = 0

        enum CodingKeys: String, CodingKey {
            case detections, reads, readsBySymbology = "reads_by_symbology", duplicates, dropped, reconnects, clients
            case torchSwitchOns = "torch_switch_ons", framesDecoded = "frames_decoded", framesSkipped = "frames_skipped", framesGated = "frames_gated"
        }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    /// Changes the counters under the lock.
    public func update(_ change: (inout Snapshot) -> Void) {
        state.withLock { change(&$0) }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }
}
