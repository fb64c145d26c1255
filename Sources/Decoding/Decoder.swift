import Codes
import Imaging

/// Something that finds codes in a frame. One instance is used by one task at a time.
public protocol Decoder: AnyObject {
    /// How many frames of a stream one full look at a scene takes: 1, or 2 when two libraries take
    /// the frames in turn (engine both), so that a frame costs one library.
    var looks: Int { get }

    /// The codes whose modules lie in `region` of `frame`, every look on this one frame. Pixels
    /// outside `region` are not read. Without `secondLooks`, only the first pass runs (none of the
    /// config's preprocessing).
    func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol]

    /// Look number `look` (0 ..< `looks`) only, for one frame of a stream. `changed`: the frame
    /// differs from the one the previous look saw, so what that look found says nothing about it.
    func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool, look: Int, changed: Bool) throws(DecoderError) -> [Symbol]
}

extension Decoder {
    public var looks: Int { 1 }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool, look: Int, changed: Bool) throws(DecoderError) -> [Symbol] {
        try decode(frame, in: region, secondLooks: secondLooks)
    }

    /// The codes inside `viewport`: only its pixels are decoded, and a code whose centre falls
    /// outside it is dropped. With `look`, only that look runs (a frame of a stream), on a frame that
    /// `changed` from the previous look's or not.
    public func symbols(in frame: Frame, viewport: Viewport, secondLooks: Bool = true, look: Int? = nil, changed: Bool = false) throws(DecoderError) -> [Symbol]
    {
        let size = frame.size
        let region = viewport.pixels(in: size)
        let found =
            if let look {
                try decode(frame, in: region, secondLooks: secondLooks, look: look, changed: changed)
            } else {
                try decode(frame, in: region, secondLooks: secondLooks)
            }
        return found.filter { viewport.admits($0.corners, in: size) }
    }
}

/// A decoder that could not be set up or could not run.
public struct DecoderError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
