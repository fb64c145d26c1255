import Imaging
import ReadPipeline
import Testing

/// The scene's motion, from where successive frames changed.
@Suite struct SceneMotionTests {
    /// Three changed frames in a row give a velocity, and the travel from the frame before the
    /// latest: what bounds the latest frame's motion blur. A frame that did not change ends both.
    @Test func threeChangedFramesGiveTheVelocityAndTheTravelBetweenFrames() {
        var motion = SceneMotion()
        for frame in 0..<2 { motion.follow(ChangeGate.Sample(x: 100 + 12 * Double(frame), y: 200 - 4 * Double(frame)), at: Double(frame) / 30) }
        #expect(motion.velocity == nil && motion.travel == nil)
        motion.follow(ChangeGate.Sample(x: 124, y: 192), at: 2 / 30.0)
        let velocity = motion.velocity
        #expect(abs((velocity?.x ?? 0) - 360) < 1e-6 && abs((velocity?.y ?? 0) + 120) < 1e-6, "\(String(describing: velocity))")
        let travel = motion.travel
        #expect(abs((travel?.x ?? 0) - 12) < 1e-6 && abs((travel?.y ?? 0) + 4) < 1e-6, "\(String(describing: travel))")
        motion.follow(nil, at: 3 / 30.0)
        #expect(motion.velocity == nil && motion.travel == nil)
    }
}
