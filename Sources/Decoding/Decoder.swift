import ScannerCore

/// Something that finds codes in a frame. One instance is used by one task at a time.
public protocol Decoder: AnyObject {
    /// The codes whose modules lie in `region` of `frame`. Pixels outside `region` are not read.
    /// Without `secondLooks`, only the first pass runs (none of the config's preprocessing).
    func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol]
}

extension Decoder {
    /// The codes inside `viewport`: only its pixels are decoded, and a code whose centre
    /// falls outside it is dropped.
    public func symbols(in frame: Frame, viewport: Viewport, secondLooks: Bool = true) throws(DecoderError) -> [Symbol] {
        let size = frame.size
        return try decode(frame, in: viewport.pixels(in: size), secondLooks: secondLooks).filter { viewport.admits($0.corners, in: size) }
    }
}

/// A decoder that could not be set up or could not run.
public struct DecoderError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
