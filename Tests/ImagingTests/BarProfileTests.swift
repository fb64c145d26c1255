import Foundation
import Imaging
import Testing

/// A linear code's profile across its bars (`BarProfile`): the axis from the gradients, and lines
/// along it averaged over a band of the bars' height.
@Suite struct BarProfileTests {
    /// Bars `width` px wide, dark and light in turn, 60 px long, across an axis at `degrees` from
    /// the rows through (100, 100); light around them.
    private static func bars(degrees: Double, width: Double, count: Int) -> Frame {
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        let pixels = (0..<200 * 200).map { index -> UInt8 in
            let (dx, dy) = (Double(index % 200) - 100, Double(index / 200) - 100)
            let (along, across) = (dx * c + dy * s + width * Double(count) / 2, -dx * s + dy * c)
            guard abs(across) < 30, along >= 0, along < width * Double(count) else { return 200 }
            return Int(along / width) % 2 == 0 ? 40 : 200
        }
        return Frame(width: 200, height: 200, pixels: pixels)
    }

    /// Slanted bars, at 2.5 px each, 36° and 126° from the rows: the profile's angle is the axis's,
    /// to a degree, and it shows every bar, as dark and light runs in turn of about their width.
    @Test(arguments: [36.0, 126.0, -20.0])
    func theProfileCrossesEveryBarAlongTheAxis(degrees: Double) throws {
        let frame = Self.bars(degrees: degrees, width: 2.5, count: 21)
        let profile = try #require(BarProfile(frame: frame, around: PixelRect(x: 80, y: 80, width: 40, height: 40), reach: 60))
        // The axis is a line: 36° and 216° are one.
        let angle = atan2(profile.axis.y, profile.axis.x) * 180 / .pi
        var error = abs(angle - degrees).truncatingRemainder(dividingBy: 180)
        error = min(error, 180 - error)
        #expect(error < 1, "angle \(angle)°")
        #expect(profile.samples.count == 240)
        // Dark runs of the profile (two samples a pixel): one per dark bar, each about 5 samples long.
        var runs: [Int] = []
        var length = 0
        for sample in profile.samples + [255] {
            if sample < 120 {
                length += 1
            } else if length > 0 {
                runs.append(length)
                length = 0
            }
        }
        #expect(runs.count == 11, "\(runs)")
        #expect(runs.allSatisfy { (4...6).contains($0) }, "\(runs)")
    }

    /// A region without edges has no axis.
    @Test func aFlatRegionHasNoProfile() {
        let frame = Frame(width: 50, height: 50, pixels: [UInt8](repeating: 128, count: 2500))
        #expect(BarProfile(frame: frame, around: PixelRect(x: 10, y: 10, width: 20, height: 20), reach: 10) == nil)
    }
}
