import Codes
import Dispatch
import Imaging
import Synchronization

/// A moving frame's deblurring (`RoutedDecoder.deblurredLook`), the last of its looks, started as
/// soon as the first passes found nothing: on a thread of its own, by a decoder of its own
/// (`beside`), while the frame's thread runs the looks before it; or, without one, in turn when
/// its reads are asked for. `reads` waits for it; `cancel` stops it at its next step and waits.
/// Either way the frame is let go on the frame's thread: a camera frame's last reference gives its
/// buffer back to the capture.
final class Deblurring: Sendable {
    /// A decoder for the deblurring on another thread: one thread at a time holds it.
    final class Decoder: Sendable {
        fileprivate let held: Mutex<RoutedDecoder>
        init(_ decoder: sending RoutedDecoder) { held = Mutex(decoder) }
    }

    /// The frame, until the look takes it.
    private let lent: Mutex<Frame?>
    private let region: PixelRect
    private let travel: MotionBlur.Travel?
    private let cancelled = Atomic<Bool>(false)
    private let done = DispatchGroup()
    private let outcome = Mutex<Result<[Symbol], DecoderError>?>(nil)

    init(_ frame: Frame, in region: PixelRect, travel: MotionBlur.Travel?, beside: Decoder?) {
        lent = Mutex(frame)
        (self.region, self.travel) = (region, travel)
        guard let beside else { return }
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let result = beside.held.withLock { decoder in Result { () throws(DecoderError) in try look(by: decoder) } }
            outcome.withLock { $0 = result }
            done.leave()
        }
    }

    /// The frame is let go as the look returns, before `done` is left, while the frame's thread still holds it.
    private func look(by decoder: RoutedDecoder) throws(DecoderError) -> [Symbol] {
        guard let frame = lent.withLock({ $0.take() }) else { return [] }
        return try decoder.deblurredLook(frame, in: region, travel: travel, cancelled: { cancelled.load(ordering: .relaxed) })
    }

    /// What the deblurring read: it ends first, or runs now by `decoder` when it has no thread.
    func reads(inTurnBy decoder: RoutedDecoder) throws(DecoderError) -> [Symbol] {
        done.wait()
        let result = outcome.withLock { $0 } ?? Result { () throws(DecoderError) in try look(by: decoder) }
        return try result.get()
    }

    /// Stops the deblurring at its next step, and waits for it.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        done.wait()
    }
}
