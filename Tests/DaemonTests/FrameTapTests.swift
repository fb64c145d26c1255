import Imaging
import Synchronization
import Testing

@testable import Daemon

/// The frame tap in this process: a watch's pace, and no copy of a frame unless a client takes it.
@Suite struct FrameTapTests {
    /// A tapped frame of 2x2 pixels, told apart by its sequence.
    static func frame(_ sequence: UInt64) -> TappedFrame {
        TappedFrame(
            width: 2, height: 2, sequence: sequence, timestamp: 0, luma: [0, 0, 0, 0], viewport: PixelRect(x: 0, y: 0, width: 2, height: 2),
            symbols: [], reads: [])
    }

    @Test func aWatchGetsAFrameAtMostOncePerIntervalAndNoneWhilePaused() {
        let tap = FrameTap()
        let taken = Mutex<[UInt64]>([])
        tap.add(
            id: 1, kind: .watch(interval: 250),
            take: { make in
                let frame = make()
                taken.withLock { $0.append(frame.sequence) }
                return true
            }, end: { _ in })
        var made = 0
        // Frames every 33 units from 1000: due at 1000, then 1250, 1500, 1750 (the pace kept on average).
        for now in stride(from: UInt64(1000), to: 2000, by: 33) {
            tap.offer(now: now, paused: false) {
                made += 1
                return Self.frame(now)
            }
        }
        #expect(taken.withLock { $0 } == [1000, 1264, 1528, 1759])
        #expect(made == 4, "a frame is copied only when a view is taken")
        for now in stride(from: UInt64(2000), to: 3000, by: 33) { tap.offer(now: now, paused: true) { Self.frame(now) } }
        #expect(taken.withLock { $0.count } == 4, "no view while scanning is paused")
        tap.offer(now: 3000, paused: false) { Self.frame(3000) }
        #expect(taken.withLock { $0.last } == 3000, "after the pause the first frame is due")
    }

    @Test func aWatcherStillBusyWithItsLastViewCostsNoCopy() {
        let tap = FrameTap()
        tap.add(id: 1, kind: .watch(interval: 1), take: { _ in false }, end: { _ in })
        var made = 0
        for now in UInt64(1)...100 {
            tap.offer(now: now, paused: false) {
                made += 1
                return Self.frame(now)
            }
        }
        #expect(made == 0)
        #expect(tap.remove(id: 1))
        #expect(!tap.wanted)
    }
}
