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
    /// Whether a retail code's read has bars where its quiet zone must be. A UPC-E or EAN-8: two or
    /// more dark runs within 8 modules past either end, along the middle of its bars (the first
    /// module past its box left out, which ZBar's scan-line points may fall short of by that much);
    /// or a box narrower than the code at 1 px a module, which only lines read from one side give.
    ///
    /// The standard's quiet zones are 7 to 9 modules; a code read whole has none of its own bars
    /// there, and one run is let through for a box that ends a bar short. ZBar gives a point where
    /// each line's read ends, so a code read both ways has a point at each end; the UPC-E above was
    /// read from one side only on 5 of the pass's frames, a box 1 px wide. A code read slanted (the
    /// turned look's, orientation unknown) is checked along the line through the middle of its
    /// corners' ends: the turned look read 49 modules of a UPC-A turned 36° as the UPC-E
    /// `02011743` on every frame of a pass in the motion benchmark. Other symbologies are not
    /// checked.
    ///
    /// An EAN-13 or UPC-A is checked within 6 modules of either end, and not for a narrow box: an
    /// add-on follows its end guard 7 to 12 modules on, and ZBar reads these codes whole from one
    /// side. zxing-cpp read 95 modules of a Code 128 cut by the viewport's edge as the UPC-A
    /// `901715996711` in the motion benchmark (2.3 px modules, 1 VW/s), its bars going on past the
    /// read's end in the frame.
    public static func hasBars(_ symbol: Symbol, in frame: Frame) -> Bool {
        // The modules across the code, quiet zones left out; how far past its ends to look, in modules.
        let (modules, reach, isShort): (Int, Double, Bool)
        switch symbol.symbology {
        case .upce: (modules, reach, isShort) = (51, 8, true)
        case .ean8: (modules, reach, isShort) = (67, 8, true)
        case .ean13, .upca: (modules, reach, isShort) = (95, 6, false)
        default: return false
        }
        guard let line = middleLine(symbol) else { return false }
        let module = line.length / Double(modules)
        guard module >= 1 else { return isShort }
        // The mean of the three lines through the middle of the bars (those of them in the frame)
        // at `t` px along the code from its start; nil when the middle one is off the frame.
        func level(_ t: Int) -> Int? {
            var (sum, count) = (0, 0)
            for offset in [0, -1, 1] {
                let x = Int((line.start.x + line.direction.x * Double(t) - line.direction.y * Double(offset)).rounded())
                let y = Int((line.start.y + line.direction.y * Double(t) + line.direction.x * Double(offset)).rounded())
                guard (0..<frame.width).contains(x), (0..<frame.height).contains(y) else {
                    if offset == 0 { return nil }
                    continue
                }
                (sum, count) = (sum + Int(frame[x, y]), count + 1)
            }
            return sum / count
        }
        let last = Int(line.length.rounded()) - 1
        guard last > 0 else { return false }
        var levels: [Int] = []
        for t in 0...last {
            guard let value = level(t) else { return false }
            levels.append(value)
        }
        let (dark, light) = (levels.min()!, levels.max()!)
        guard light - dark >= 32 else { return false }
        let threshold = (dark + light) / 2
        for direction in [-1, 1] {
            let edge = direction < 0 ? 0 : last
            var runs = 0
            var inBar = false
            for step in Int(module.rounded(.up))...Int((reach * module).rounded()) {
                guard let value = level(edge + direction * step) else { break }
                let isBar = value < threshold
                if isBar && !inBar { runs += 1 }
                inBar = isBar
            }
            if runs >= 2 { return true }
        }
        return false
    }

    /// The line across a read's bars through their middle: from its start (the first pixel in its
    /// box, or the middle of its slanted corners' first side), a unit step along it, and its length
    /// in pixels.
    private static func middleLine(_ symbol: Symbol) -> (start: (x: Double, y: Double), direction: (x: Double, y: Double), length: Double)? {
        let box = symbol.corners.bounds
        switch symbol.orientation {
        case .up, .down:
            return ((Double(box.x), Double(box.y + box.height / 2)), (1, 0), Double(box.width))
        case .left, .right:
            return ((Double(box.x + box.width / 2), Double(box.y)), (0, 1), Double(box.height))
        case .unknown:
            // The turned look's corners: its own top-left, top-right, bottom-right, bottom-left.
            let points = symbol.corners.points
            guard points.count == 4, points[0].x != points[1].x, points[0].y != points[1].y else { return nil }
            let start = (x: Double(points[0].x + points[3].x) / 2, y: Double(points[0].y + points[3].y) / 2)
            let end = (x: Double(points[1].x + points[2].x) / 2, y: Double(points[1].y + points[2].y) / 2)
            let (dx, dy) = (end.x - start.x, end.y - start.y)
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { return nil }
            return (start, (dx / length, dy / length), length + 1)
        }
    }
}
