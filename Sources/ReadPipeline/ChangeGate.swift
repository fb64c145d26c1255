import Imaging

/// Decides whether a frame is worth decoding: only when the viewport changed since the last decoded
/// frame, or, as a rare safety net, when `maxIntervalSeconds` passed without a decode. A kiosk
/// scanner looks at an empty counter most of the time, and a decode costs milliseconds where this
/// check costs microseconds.
///
/// The check samples the viewport on a grid (every `step`-th pixel on both axes) and compares it
/// with the grid of the last decoded frame tile by tile: the viewport is cut into `tiles` × `tiles`
/// tiles, and the frame counts as changed when the mean grey-level difference in any one tile is
/// above `threshold`, after the tile's change of mean brightness is taken out (so lighting flicker,
/// auto-exposure steps and passing shadows do not count) and the scene's noise floor too
/// (`changedTiles`). A small code appearing in one corner, or a code swapped for another of the
/// same size, changes a few tiles a lot and the viewport's mean hardly at all. A brightness change
/// that saturates part of the scene changes what is seen there, and counts. The frame in which a
/// change is seen is itself decoded, so gating adds no frame of latency.
///
/// An unchanged scene keeps the codes of its last decode in view (the tracker is told so), so no
/// decode is needed to keep a held code from being reported again. The timer decode only catches a
/// code that every decode of its changed frames missed (motion blur that settled below the threshold).
///
/// A decode that only the timer asks for (nothing changed) skips the decoder's second looks unless
/// `secondLookIntervalSeconds` has passed since the last decode that took them.
///
/// Which of the decoder's looks takes a decoded frame is the `LookSchedule`'s choice; the gate
/// decodes a frame the schedule still owes a look (`owed`) whether it changed or not.
///
/// Where the frame changed (`changeCentre`) is what the scene's motion is measured from
/// (`SceneMotion`).
public struct ChangeGate: Sendable {
    public var config: GatingConfig
    private var reference: [Int16] = []
    private var sample: [Int16] = []
    /// Grid columns of the samples.
    private var columns = 0
    /// The viewport size the reference was sampled from.
    private var referenceSize = Size(width: 0, height: 0)
    /// Per-tile sums and sample counts, kept so that the check allocates nothing once sized.
    private var tileSums: [Int] = []
    private var tileCounts: [Int] = []
    private var lastDecode: Double = -.infinity
    private var lastSecondLook: Double = -.infinity
    /// Where the last frame compared changed from the reference, in frame pixels: the centre of
    /// its changed tiles, each weighted by how far its change passed the threshold; nil when it did
    /// not change (or was not compared: the first frame, the gate off).
    public private(set) var changeCentre: Sample?

    /// A place in the frame, in pixels, with a fraction.
    public struct Sample: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    }

    public init(config: GatingConfig) {
        self.config = config
    }

    /// Whether and how to decode `frame`, captured at `time` seconds; a decode makes it the new
    /// reference. `owed`: the look schedule owes this frame a look at the scene of the last full
    /// decode, so it is decoded, changed or not.
    public mutating func decide(_ frame: Frame, viewport: PixelRect, at time: Double, owed: Bool = false) -> GateDecision {
        changeCentre = nil
        let changed = config.enabled ? sampleAndCompare(frame, viewport) : true
        if owed {
            adoptSample()
            lastDecode = time
            return .decode(secondLooks: true, changed: changed)
        }
        guard config.enabled else { return full(at: time, changed: true) }
        guard changed || time - lastDecode >= config.maxIntervalSeconds else { return .skip }
        adoptSample()
        lastDecode = time
        guard changed || time - lastSecondLook >= config.secondLookIntervalSeconds else {
            return .decode(secondLooks: false, changed: false)
        }
        return full(at: time, changed: changed)
    }

    /// A decode with second looks.
    private mutating func full(at time: Double, changed: Bool) -> GateDecision {
        lastSecondLook = time
        return .decode(secondLooks: true, changed: changed)
    }

    /// Forgets the reference: the next frame is decoded (after a trigger, a resume, a new camera).
    public mutating func reset() {
        reference = []
        lastDecode = -.infinity
        lastSecondLook = -.infinity
    }

    /// The sample becomes the reference; the two grids trade places.
    private mutating func adoptSample() {
        swap(&reference, &sample)
    }

    /// Samples the viewport and says whether it changed from the reference.
    private mutating func sampleAndCompare(_ frame: Frame, _ viewport: PixelRect) -> Bool {
        columns = Self.grid(frame, viewport, step: Self.spacing(viewport, step: config.step), into: &sample)
        let size = Size(width: viewport.width, height: viewport.height)
        defer { referenceSize = size }
        guard size == referenceSize, sample.count == reference.count, !sample.isEmpty else { return true }
        var centre: Sample?
        let changed = Self.changedTiles(
            sample, reference, columns: columns, tiles: config.tiles, threshold: config.threshold,
            sums: &tileSums, counts: &tileCounts, centre: &centre)
        if let centre {
            changeCentre = Sample(x: Double(viewport.x) + centre.x * Double(viewport.width), y: Double(viewport.y) + centre.y * Double(viewport.height))
        }
        return changed > 0
    }

    /// How many tiles of the two grids changed. A tile's change is the mean absolute difference of
    /// its samples after taking out the tile's own change of mean brightness (flicker, exposure, a
    /// passing shadow), less the scene's noise floor: the lower quartile of the tiles' changes, at
    /// most `threshold`. A tile changed when that is above `threshold`. Sensor noise of ±3 grey
    /// levels gives every tile a change of about 2, which the floor takes out; a code swapped for
    /// another changes its tiles by tens of levels. `centre`: the changed tiles' centre, each
    /// weighted by how far its change passed the threshold, as fractions of the grid's width and
    /// height; nil when none changed.
    static func changedTiles(
        _ a: [Int16], _ b: [Int16], columns: Int, tiles: Int, threshold: Double, sums: inout [Int], counts: inout [Int], centre: inout Sample?
    ) -> Int {
        centre = nil
        guard !a.isEmpty, columns > 0 else { return 0 }
        let rows = a.count / columns
        let across = min(tiles, columns)
        let down = min(tiles, rows)
        let count = across * down
        // Per tile: the sum of a − b and the number of samples, then the sum of |a − b − shift|.
        sums.removeAll(keepingCapacity: true)
        sums.append(contentsOf: repeatElement(0, count: 2 * count))
        counts.removeAll(keepingCapacity: true)
        counts.append(contentsOf: repeatElement(0, count: count))
        // The tile column of each grid column, worked out once rather than divided per sample.
        let tileOfColumn = (0..<columns).map { $0 * across / columns }
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                sums.withUnsafeMutableBufferPointer { sums in
                    counts.withUnsafeMutableBufferPointer { counts in
                        for row in 0..<rows {
                            let tileRow = row * down / rows * across
                            let start = row * columns
                            for column in 0..<columns {
                                let tile = tileRow + tileOfColumn[column]
                                sums[tile] += Int(a[start + column]) - Int(b[start + column])
                                counts[tile] += 1
                            }
                        }
                        for tile in 0..<count { sums[tile] /= max(counts[tile], 1) }
                        for row in 0..<rows {
                            let tileRow = row * down / rows * across
                            let start = row * columns
                            for column in 0..<columns {
                                let tile = tileRow + tileOfColumn[column]
                                sums[count + tile] += abs(Int(a[start + column]) - Int(b[start + column]) - sums[tile])
                            }
                        }
                    }
                }
            }
        }
        // The tiles' mean changes (in sixteenths), in place of the shifts; sorted for the floor
        // in the second half, which the sums are done with.
        for tile in 0..<count { sums[tile] = counts[tile] > 0 ? sums[count + tile] * 16 / counts[tile] : 0 }
        for tile in 0..<count { sums[count + tile] = sums[tile] }
        sums[count..<(2 * count)].sort()
        // With fewer than four tiles there is no quartile to speak of: no floor (one tile is the
        // single mean over the viewport of the gate before 2026-11-24).
        let floor = count < 4 ? 0 : min(Double(sums[count + count / 4]) / 16, threshold)
        var (changed, weight, x, y) = (0, 0.0, 0.0, 0.0)
        for tile in 0..<count {
            let over = Double(sums[tile]) / 16 - floor - threshold
            guard over > 0 else { continue }
            changed += 1
            weight += over
            x += over * (Double(tile % across) + 0.5) / Double(across)
            y += over * (Double(tile / across) + 0.5) / Double(down)
        }
        if weight > 0 { centre = Sample(x: x / weight, y: y / weight) }
        return changed
    }

    /// The grid spacing for `region`: `step`, or coarser for a large viewport, so that the check
    /// takes about as many samples (90 × 90) whatever the frame size and viewport.
    static func spacing(_ region: PixelRect, step: Int) -> Int {
        max(step, max(region.width, region.height) / 90)
    }

    /// Samples `region` every `step` pixels into `sample`; returns the number of columns.
    @discardableResult
    static func grid(_ frame: Frame, _ region: PixelRect, step: Int, into sample: inout [Int16]) -> Int {
        let columns = (region.width - step / 2 + step - 1) / step
        let rows = (region.height - step / 2 + step - 1) / step
        sample.removeAll(keepingCapacity: true)
        sample.append(contentsOf: repeatElement(0, count: max(columns, 0) * max(rows, 0)))
        guard columns > 0, rows > 0 else { return 0 }
        let base = frame.storage.base.assumingMemoryBound(to: UInt8.self)
        let stride = frame.stride
        sample.withUnsafeMutableBufferPointer { sample in
            for row in 0..<rows {
                let line = base + (region.y + step / 2 + row * step) * stride + region.x + step / 2
                for column in 0..<columns { sample[row * columns + column] = Int16(line[column * step]) }
            }
        }
        return columns
    }
}

/// What the gate decided for one frame.
public enum GateDecision: Sendable, Equatable {
    /// Nothing changed and no decode is due.
    case skip
    /// Decode the frame, with the decoder's second looks or the plain pass only. `changed`: the
    /// frame differs from the last decoded one; when it does not (a timer decode, or a look owed to
    /// an unchanged scene), the codes of the last decode are still in view whatever this decode finds.
    case decode(secondLooks: Bool, changed: Bool = true)
}

/// When frames are decoded.
public struct GatingConfig: Sendable, Hashable {
    /// Off: every frame is decoded.
    public var enabled = true
    /// Mean grey-level change within one tile (0...255, the viewport's brightness shift removed)
    /// that counts as a new scene.
    public var threshold = 3.0
    /// The viewport is compared as `tiles` × `tiles` tiles.
    public var tiles = 8
    /// A frame is decoded at least this often, changed or not.
    public var maxIntervalSeconds = 10.0
    /// A decode forced by the timer on an unchanged scene takes the decoder's second looks at most this often.
    public var secondLookIntervalSeconds = 1.0
    /// Grid spacing in pixels of the change check; coarser for a viewport over 360 pixels (`spacing`).
    public var step = 4

    public init() {}
}

extension GatingConfig {
    /// The gating a stream runs with, given its tracking: a code held in view is to be reported
    /// again after `sameCodeTimeoutSeconds`, and only a decode can report it, so the timer decode
    /// comes at least that often.
    public func following(_ tracking: TrackingConfig) -> GatingConfig {
        var gating = self
        if tracking.sameCodeTimeoutSeconds > 0 { gating.maxIntervalSeconds = min(maxIntervalSeconds, tracking.sameCodeTimeoutSeconds) }
        return gating
    }
}
