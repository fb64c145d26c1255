/// Decides whether a frame is worth decoding: only when the viewport changed enough since the last
/// decoded frame, or when too long has passed without a decode. A kiosk scanner looks at an empty
/// counter most of the time, and a decode costs milliseconds where this check costs microseconds.
///
/// The check compares a subsampled grid of the viewport (every `step`-th pixel on both axes) with
/// the grid of the last decoded frame, after removing the change of mean brightness, so lighting
/// flicker and auto-exposure steps do not count as change. The frame in which a change is seen is
/// itself decoded, so gating adds no frame of latency.
///
/// A decode that only the timer asks for (nothing changed) skips the decoder's second looks unless
/// `secondLookIntervalSeconds` has passed since the last decode that took them: an empty counter
/// then costs one plain pass per `maxIntervalSeconds`, and a code held still that only a second
/// look reads is still read within that interval.
public struct ChangeGate: Sendable {
    public var config: GatingConfig
    private var reference: [Int16] = []
    private var sample: [Int16] = []
    private var referenceSize = Size(width: 0, height: 0)
    private var lastDecode: Double = -.infinity
    private var lastSecondLook: Double = -.infinity

    public init(config: GatingConfig) {
        self.config = config
    }

    /// Whether and how to decode `frame`, captured at `time` seconds; a decode makes it the new reference.
    public mutating func decide(_ frame: Frame, viewport: PixelRect, at time: Double) -> GateDecision {
        guard config.enabled else { return .decode(secondLooks: true) }
        // The two grids trade places, so the check allocates nothing once their size is set.
        Self.grid(frame, viewport, step: config.step, into: &sample)
        let size = Size(width: viewport.width, height: viewport.height)
        let changed = size != referenceSize || sample.count != reference.count || Self.difference(sample, reference) > config.threshold
        guard changed || time - lastDecode >= config.maxIntervalSeconds else { return .skip }
        swap(&reference, &sample)
        referenceSize = size
        lastDecode = time
        guard changed || time - lastSecondLook >= config.secondLookIntervalSeconds else { return .decode(secondLooks: false) }
        lastSecondLook = time
        return .decode(secondLooks: true)
    }

    /// Forgets the reference: the next frame is decoded (after a trigger, a resume, a new camera).
    public mutating func reset() {
        reference = []
        lastDecode = -.infinity
        lastSecondLook = -.infinity
    }

    /// Mean absolute difference of two grids, after taking out the difference of their means.
    static func difference(_ a: [Int16], _ b: [Int16]) -> Double {
        guard !a.isEmpty else { return 0 }
        var sumA = 0, sumB = 0
        for index in a.indices {
            sumA += Int(a[index])
            sumB += Int(b[index])
        }
        let shift = (sumA - sumB) / a.count
        var total = 0
        for index in a.indices { total += abs(Int(a[index]) - Int(b[index]) - shift) }
        return Double(total) / Double(a.count)
    }

    static func grid(_ frame: Frame, _ region: PixelRect, step: Int, into sample: inout [Int16]) {
        sample.removeAll(keepingCapacity: true)
        sample.reserveCapacity((region.width / step + 1) * (region.height / step + 1))
        var y = region.y + step / 2
        while y < region.y + region.height {
            var x = region.x + step / 2
            while x < region.x + region.width {
                sample.append(Int16(frame[x, y]))
                x += step
            }
            y += step
        }
    }
}

/// What the gate decided for one frame.
public enum GateDecision: Sendable, Equatable {
    /// Nothing changed and no decode is due.
    case skip
    /// Decode the frame, with the decoder's second looks or the plain pass only.
    case decode(secondLooks: Bool)
}

/// When frames are decoded.
public struct GatingConfig: Sendable, Hashable {
    /// Off: every frame is decoded.
    public var enabled = true
    /// Mean grey-level change (0...255, brightness shift removed) that counts as a new scene.
    public var threshold = 3.0
    /// A frame is decoded at least this often, changed or not.
    public var maxIntervalSeconds = 0.5
    /// A decode forced by the timer on an unchanged scene takes the decoder's second looks at most this often.
    public var secondLookIntervalSeconds = 1.0
    /// Grid spacing in pixels of the change check.
    public var step = 8

    public init() {}
}
