import Codes
import Imaging

extension Read {
    /// A read of `text` in a 10 × 10 frame, as a decoder would make it: for tests of what reads
    /// become, where the pixels do not matter.
    public static func sample(_ symbology: Symbology, _ text: String, gs1: Bool = false) -> Read {
        let box = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])
        return Read(symbol: Symbol(symbology: symbology, bytes: Array(text.utf8), isGS1: gs1, corners: box), frame: Size(width: 10, height: 10))
    }
}
