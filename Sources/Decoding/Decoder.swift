import Codes
import Imaging

/// One library's part of a decode, for a stream whose frames the libraries take in turn (the read
/// pipeline's look schedule chooses it).
public enum DecoderPass: Sendable, Hashable {
    /// A still image (`scan`): every library and every pass, and for engine both the closer
    /// looks (`upscaled`, `sharpened`) when nothing else read a code.
    case still
    /// Every library and every pass the config asks for on one frame of a stream (a trigger
    /// session's first, a snapshot), or a decoder of one library.
    case whole
    /// ZBar, with its second looks where asked.
    case zbar
    /// zxing-cpp's first pass.
    case zxingFirst
    /// zxing-cpp's second looks: tryRotate, tryInvert, the global-histogram binarizer.
    case zxingSecond
    /// ZBar's first pass, then zxing-cpp's, on one frame: a moving scene, whose frames may each be
    /// the only sharp one of a swipe. zxing-cpp looks only for what ZBar cannot read when ZBar found
    /// codes on this frame. When neither found any, ZBar looks at the whole frame for a code centred
    /// in the region that reaches beyond it (a long Code 128), and then the `deblur` preprocessing
    /// undoes the frame's motion blur and both look again.
    case moving
}

/// Something that finds codes in a frame. One instance is used by one task at a time.
public protocol Decoder: AnyObject {
    /// The passes a stream's frames take in turn: `[.whole]`, or one per library pass when two
    /// libraries share the frames (engine both), so that a frame costs one library.
    var passes: [DecoderPass] { get }

    /// The codes whose modules lie in `region` of `frame`, every pass on this one still image. Pixels
    /// outside `region` are not read (but by `.moving`'s look for a code reaching beyond it).
    /// Without `secondLooks`, only the first pass runs (none of the config's preprocessing).
    func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol]

    /// Pass `pass` only, for one frame of a stream. `narrowed`: ZBar's latest look found codes, so
    /// zxing-cpp looks only for what ZBar cannot read. `travel`: how far the scene moved from the
    /// frame before, when it was measured; a blur it could not have made is not undone.
    func decode(
        _ frame: Frame, in region: PixelRect, pass: DecoderPass, secondLooks: Bool, narrowed: Bool, travel: MotionBlur.Travel?
    ) throws(DecoderError) -> [Symbol]
}

extension Decoder {
    public var passes: [DecoderPass] { [.whole] }

    public func decode(
        _ frame: Frame, in region: PixelRect, pass: DecoderPass, secondLooks: Bool, narrowed: Bool, travel: MotionBlur.Travel?
    ) throws(DecoderError) -> [Symbol] {
        try decode(frame, in: region, secondLooks: secondLooks)
    }

    /// The codes inside `viewport`: only its pixels are decoded, and a code whose centre falls
    /// outside it is dropped. With a `pass` other than `.still`, only that pass runs (a frame of a stream).
    public func symbols(
        in frame: Frame, viewport: Viewport, secondLooks: Bool = true, pass: DecoderPass = .still, narrowed: Bool = false,
        travel: MotionBlur.Travel? = nil
    ) throws(DecoderError) -> [Symbol] {
        let size = frame.size
        let found = try decode(frame, in: viewport.pixels(in: size), pass: pass, secondLooks: secondLooks, narrowed: narrowed, travel: travel)
        return found.filter { viewport.admits($0.corners, in: size) }
    }
}

/// A decoder that could not be set up or could not run.
public struct DecoderError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
