import Codes

/// One read per pack: how codes that stand for the same item are told apart from separate items.
public struct PackConfig: Sendable, Hashable {
    /// Which of a pack's codes is reported.
    public enum Prefer: String, Sendable, Hashable, CaseIterable {
        /// The one with the most GS1 data (a 2D code with batch and expiry over the EAN-13); the
        /// first found among equals.
        case moreData = "more-data"
        /// The EAN/UPC code, for POS software that only takes those.
        case linear
    }

    /// Whether codes with the same GTIN seen together are one read.
    public var merge = true
    /// Codes found up to this many seconds apart are together; 0 means in the same frame. Above 0,
    /// a code with a GTIN waits this long for its pack's other codes before it is reported.
    public var windowSeconds = 0.0
    public var prefer = Prefer.moreData

    public init() {}
}

/// Makes one read of the codes of one pack: an EAN-13 and a GS1 DataMatrix or Digital Link QR
/// with the same GTIN (AI 01), seen in one frame or within the window. Reads without a GTIN pass
/// straight through. Pure: reads and times in, reads out.
public struct PackMerger: Sendable {
    public let config: PackConfig
    /// Reads with a GTIN waiting for the window to close, oldest first.
    private var waiting: [(gtin: String, read: Read, due: Double)] = []

    public init(config: PackConfig) {
        self.config = config
    }

    /// Takes the new reads of one frame seen at `time` (seconds, monotonic); returns the reads to
    /// report now, in the order found (merged ones where the first of their pack was).
    public mutating func add(_ reads: [Read], at time: Double) -> [Read] {
        guard config.merge else { return reads }
        var ready: [Read] = []
        for read in reads {
            guard let gtin = read.gtin else {
                ready.append(read)
                continue
            }
            if let index = waiting.firstIndex(where: { $0.gtin == gtin }) {
                waiting[index].read = merge(waiting[index].read, read)
            } else if config.windowSeconds == 0, let index = ready.firstIndex(where: { $0.gtin == gtin }) {
                ready[index] = merge(ready[index], read)
            } else if config.windowSeconds == 0 {
                ready.append(read)
            } else {
                waiting.append((gtin, read, time + config.windowSeconds))
            }
        }
        return ready + due(at: time)
    }

    /// The waiting reads whose window has closed by `time`.
    public mutating func due(at time: Double) -> [Read] {
        guard waiting.contains(where: { $0.due <= time }) else { return [] }
        let ready = waiting.filter { $0.due <= time }.map(\.read)
        waiting.removeAll { $0.due <= time }
        return ready
    }

    /// Every waiting read, at once: scanning stopped or the camera went away, and nothing may be lost.
    public mutating func flush() -> [Read] {
        defer { waiting.removeAll() }
        return waiting.map(\.read)
    }

    /// Whether reads are waiting for their window.
    public var isWaiting: Bool { !waiting.isEmpty }

    /// The read reported for two codes of one pack, naming the other (and those merged before).
    private func merge(_ first: Read, _ second: Read) -> Read {
        var (kept, other) = prefers(second, over: first) ? (second, first) : (first, second)
        let earlier = other.merged ?? []
        other.merged = nil
        kept.merged = (kept.merged ?? []) + [MergedCode(other)] + earlier
        return kept
    }

    private func prefers(_ candidate: Read, over current: Read) -> Bool {
        switch config.prefer {
        case .moreData: (candidate.gs1?.count ?? 0) > (current.gs1?.count ?? 0)
        case .linear: candidate.symbologyID.isEANUPC && !current.symbologyID.isEANUPC
        }
    }
}
