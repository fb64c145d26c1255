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
///
/// With a decoder of several looks (ZBar and zxing-cpp taking frames in turn), a decode with second
/// looks starts at look 0, and the frames right after it are decoded with the other looks whether
/// they changed or not: a scene gets every look, and on frames that keep changing the looks take
/// turns. Plain timer decodes take turns too.
public struct ChangeGate: Sendable {
    public var config: GatingConfig
    /// How many frames one full look at a scene takes (the decoder's `looks`).
    public var looks = 1 {
        didSet { owed = 0 }
    }
    private var reference: [Int16] = []
    private var sample: [Int16] = []
    private var referenceSize = Size(width: 0, height: 0)
    private var lastDecode: Double = -.infinity
    private var lastSecondLook: Double = -.infinity
    /// Looks still owed to the scene of the last full decode, and the look of the next plain one.
    private var owed = 0
    private var plainLook = 0

    public init(config: GatingConfig) {
        self.config = config
    }

    /// Whether and how to decode `frame`, captured at `time` seconds; a decode makes it the new reference.
    public mutating func decide(_ frame: Frame, viewport: PixelRect, at time: Double) -> GateDecision {
        if owed > 0 {
            // The other looks at a scene follow its first on the next frames, changed or not.
            owed -= 1
            if config.enabled { Self.grid(frame, viewport, step: config.step, into: &reference) }
            lastDecode = time
            return .decode(secondLooks: true, look: looks - 1 - owed)
        }
        guard config.enabled else { return full(at: time) }
        // The two grids trade places, so the check allocates nothing once their size is set.
        Self.grid(frame, viewport, step: config.step, into: &sample)
        let size = Size(width: viewport.width, height: viewport.height)
        let changed = size != referenceSize || sample.count != reference.count || Self.difference(sample, reference) > config.threshold
        guard changed || time - lastDecode >= config.maxIntervalSeconds else { return .skip }
        swap(&reference, &sample)
        referenceSize = size
        lastDecode = time
        guard changed || time - lastSecondLook >= config.secondLookIntervalSeconds else {
            plainLook = (plainLook + 1) % looks
            return .decode(secondLooks: false, look: plainLook)
        }
        return full(at: time)
    }

    /// A decode with second looks: look 0 now, the others owed to the next frames.
    private mutating func full(at time: Double) -> GateDecision {
        lastSecondLook = time
        owed = looks - 1
        return .decode(secondLooks: true, look: 0)
    }

    /// Forgets the reference: the next frame is decoded (after a trigger, a resume, a new camera).
    public mutating func reset() {
        reference = []
        lastDecode = -.infinity
        lastSecondLook = -.infinity
        owed = 0
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
    /// Decode the frame, with the decoder's second looks or the plain pass only, with look `look`
    /// of a decoder whose libraries take frames in turn.
    case decode(secondLooks: Bool, look: Int = 0)
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
