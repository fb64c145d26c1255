/// The daemon's counters at one moment, as `status` sends them.
public struct CounterSnapshot: Sendable, Codable, Equatable {
    /// Codes found in frames, before tracking: reads + duplicates + unconfirmed + merged + dropped +
    /// rejected + held + awaiting (see `status`).
    public var detections = 0
    /// Reads delivered to at least one client (a read not delivered is counted under `dropped`).
    public var reads = 0
    public var readsBySymbology: [String: Int] = [:]
    /// Detections of a code already reported and still in view.
    public var duplicates = 0
    /// First sightings of a code that a second frame must confirm (`tracking.confirm`): reported
    /// when one does, as a read of its own.
    public var unconfirmed = 0
    /// Codes reported inside another code's read: the same pack (GTIN), seen together.
    public var merged = 0
    /// Reads not delivered to any client, by reason.
    public var dropped: [String: Int] = [:]
    /// Reads a consumer refused (`nak`): its own outcome, neither delivered nor dropped.
    public var rejected = 0
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
    /// Views sent to `watch` connections, and views skipped because a watcher had not read the last one.
    public var viewsSent = 0
    public var viewsSkipped = 0
    /// Decode times: counts per bucket of `Self.decodeBuckets` (the last is +Inf), and their sum.
    public var decodeHistogram = [Int](repeating: 0, count: Self.decodeBuckets.count + 1)
    public var decodeSeconds = 0.0

    /// Upper bounds, in seconds, of the decode-time histogram buckets.
    public static let decodeBuckets: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1]

    public init() {}

    /// The decode time under which `fraction` of decodes fell, as a bucket's upper bound.
    public func decodeQuantile(_ fraction: Double) -> Double? {
        let total = decodeHistogram.reduce(0, +)
        guard total > 0 else { return nil }
        var seen = 0
        for (index, count) in decodeHistogram.enumerated() {
            seen += count
            if Double(seen) >= fraction * Double(total) {
                return index < Self.decodeBuckets.count ? Self.decodeBuckets[index] : .infinity
            }
        }
        return .infinity
    }

    enum CodingKeys: String, CodingKey {
        case detections, reads
        case readsBySymbology = "reads_by_symbology"
        case duplicates, unconfirmed, merged, dropped, rejected, reconnects, clients
        case clientsRefused = "clients_refused"
        case torchSwitchOns = "torch_switch_ons"
        case framesDecoded = "frames_decoded"
        case framesSkipped = "frames_skipped"
        case framesGated = "frames_gated"
        case viewsSent = "views_sent"
        case viewsSkipped = "views_skipped"
        case decodeHistogram = "decode_histogram"
        case decodeSeconds = "decode_seconds"
    }
}

/// An output's state and counts as `status` sends them (the daemon fills it in from the output's
/// own health).
public struct OutputStatus: Sendable, Codable, Equatable {
    public var name: String
    /// `ok`, `waiting` (device missing, reads held) or `error`.
    public var state: String
    public var detail: String?
    public var sent = 0
    /// Reads given up, by reason.
    public var failed: [String: Int] = [:]
    /// Reads a formatting rule sent as nothing (handled, not failed).
    public var filtered = 0
    public var queued = 0

    public init(name: String, state: String, detail: String? = nil) {
        self.name = name
        self.state = state
        self.detail = detail
    }
}
