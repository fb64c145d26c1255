import Codes
import Imaging

/// The clear margin a linear code needs on either side, checked in the frame a stream read came
/// from: a short code whose quiet zone holds bars is part of a longer code.
///
/// ZBar looks for a quiet zone before a code's start guard, in the direction it reads, and not
/// after its end guard, so a short code's modules inside a longer one can decode: the middle 49
/// modules of a UPC-A upside down gave the UPC-E `02778488` on every frame of a pass in the motion
/// benchmark (1.8 px modules), bars continuing past one end. The read pipeline drops such reads from
/// every stream look, whichever engine made them. On a still image (`scan`) such a read gives way to
/// a code read over it, by the libraries or their closer looks, and otherwise stands
/// (`RoutedDecoder.givingWay`).
public enum QuietZone {
    /// Whether a UPC-E or EAN-8 read has bars where its quiet zone must be: two or more dark runs
    /// within 8 modules past either end, along the middle of its bars (the first module past its
    /// box left out, which ZBar's scan-line points may fall short of by that much); or a box
    /// narrower than the code at 1 px a module, which only lines read from one side give.
    ///
    /// The standard's quiet zones are 7 to 9 modules; a code read whole has none of its own bars
    /// there, and one run is let through for a box that ends a bar short. ZBar gives a point where
    /// each line's read ends, so a code read both ways has a point at each end; the UPC-E above was
    /// read from one side only on 5 of the pass's frames, a box 1 px wide. Codes read turned
    /// (orientation unknown) and other symbologies are not checked.
    public static func hasBars(_ symbol: Symbol, in frame: Frame) -> Bool {
        guard let modules = shortEANModules[symbol.symbology] else { return false }
        let alongRows: Bool
        switch symbol.orientation {
        case .up, .down: alongRows = true
        case .left, .right: alongRows = false
        case .unknown: return false
        }
        let box = symbol.corners.bounds
        let (start, end) = alongRows ? (box.x, box.x + box.width - 1) : (box.y, box.y + box.height - 1)
        let module = Double(end - start + 1) / Double(modules)
        guard module >= 1 else { return true }
        let middle = alongRows ? box.y + box.height / 2 : box.x + box.width / 2
        let (length, breadth) = alongRows ? (frame.width, frame.height) : (frame.height, frame.width)
        guard (0..<breadth).contains(middle), start >= 0, end < length else { return false }
        // The mean of three lines through the middle of the bars at `t` along the code.
        let lines = max(middle - 1, 0)...min(middle + 1, breadth - 1)
        func level(_ t: Int) -> Int {
            lines.reduce(0) { $0 + Int(alongRows ? frame[t, $1] : frame[$1, t]) } / lines.count
        }
        let levels = (start...end).map(level)
        let (dark, light) = (levels.min()!, levels.max()!)
        guard light - dark >= 32 else { return false }
        let threshold = (dark + light) / 2
        for direction in [-1, 1] {
            let edge = direction < 0 ? start : end
            var runs = 0
            var inBar = false
            for step in Int(module.rounded(.up))...Int((8 * module).rounded()) {
                let t = edge + direction * step
                guard (0..<length).contains(t) else { break }
                let isBar = level(t) < threshold
                if isBar && !inBar { runs += 1 }
                inBar = isBar
            }
            if runs >= 2 { return true }
        }
        return false
    }

    /// The modules across the short retail codes, quiet zones left out.
    private static let shortEANModules: [Symbology: Int] = [.upce: 51, .ean8: 67]
}
