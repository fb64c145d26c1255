import Imaging

/// How the scene in the viewport moves: the velocity of where successive frames changed (the
/// change gate's `changeCentre`), in pixels a second.
///
/// A code swiped past is often read on one frame only, its others too blurred or turned to read;
/// such a sighting has no motion of its own, and the tracker takes the scene's when the code is
/// found again later in the swipe (`Tracker.Track.continues`). While one thing crosses the
/// viewport, the tiles that change from frame to frame lie around it, so their centre moves with
/// it. The velocity is measured over the last `window` frames that each changed from the one
/// before; a frame that did not change ends the motion. The centre moves in steps of the gate's
/// tiles (45 px in the default viewport) as much as with the code, so a short window reads a slow
/// swipe's speed wrong by as much as the speed itself: 15 frames is half a second at 30 fps.
public struct SceneMotion: Sendable {
    /// At most this many frames measure the velocity.
    public var window = 15
    private var samples: [(time: Double, centre: ChangeGate.Sample)] = []

    public init() {}

    /// Takes the next frame, at `time`: where it changed, or nil when it did not.
    public mutating func follow(_ centre: ChangeGate.Sample?, at time: Double) {
        guard let centre else {
            samples.removeAll(keepingCapacity: true)
            return
        }
        if samples.count >= window { samples.removeFirst(samples.count - window + 1) }
        samples.append((time, centre))
    }

    /// The scene's velocity from the first to the last of at least three changed frames in a row;
    /// nil before three.
    public var velocity: Tracker.Velocity? {
        guard samples.count >= 3, let first = samples.first, let last = samples.last, last.time > first.time else { return nil }
        let span = last.time - first.time
        return Tracker.Velocity(x: (last.centre.x - first.centre.x) / span, y: (last.centre.y - first.centre.y) / span)
    }

    /// How far the scene moved at `velocity` from the frame before the latest to the latest: what
    /// bounds the latest frame's motion blur (`MotionBlur.fits`). Nil without a velocity.
    public var travel: MotionBlur.Travel? {
        guard let velocity else { return nil }
        let interval = samples[samples.count - 1].time - samples[samples.count - 2].time
        return MotionBlur.Travel(x: velocity.x * interval, y: velocity.y * interval)
    }
}
