import Imaging
import Testing

/// A region turned 45° (`Turn45`): each pixel of the turned image is the frame, interpolated, at the
/// point the turn puts it; points beyond the frame take its edge.
@Suite struct TurningTests {
    /// A ramp, `x + y` at pixel (x, y): bilinear interpolation of a plane is exact, so every turned
    /// pixel must be the plane at its point, to rounding.
    private static func ramp(width: Int, height: Int) -> Frame {
        Frame(width: width, height: height, pixels: (0..<width * height).map { UInt8($0 % width + $0 / width) })
    }

    /// The regions: inside the frame, and the whole frame (the turned image's corners then lie
    /// outside it, on all four sides).
    @Test(arguments: [PixelRect(x: 50, y: 40, width: 40, height: 30), PixelRect(x: 0, y: 0, width: 140, height: 110)])
    func eachPixelIsTheFrameAtItsPointClampedToTheEdge(region: PixelRect) {
        let frame = Self.ramp(width: 140, height: 110)
        let turn = Turn45(region: region)
        let half = 0.5.squareRoot()
        #expect(turn.side == Int((Double(region.width + region.height) * half).rounded(.up)))
        var turned = [UInt8](repeating: 0, count: turn.side * turn.side)
        turned.withUnsafeMutableBufferPointer { turn.turn(frame, into: $0) }
        let (centreX, centreY) = (Double(region.x) + Double(region.width) / 2, Double(region.y) + Double(region.height) / 2)
        var clamped = 0
        var worst = 0.0
        for v in 0..<turn.side {
            for u in 0..<turn.side {
                let (du, dv) = (Double(u) + 0.5 - Double(turn.side) / 2, Double(v) + 0.5 - Double(turn.side) / 2)
                // Pixel-index space, where pixel (x, y)'s value lies at (x, y); interpolation needs a
                // pixel on each side, so the last column and row are reached only as neighbours.
                let (x, y) = (centreX + (du - dv) * half - 0.5, centreY + (du + dv) * half - 0.5)
                let (inX, inY) = (min(max(x, 0), 138), min(max(y, 0), 108))
                if inX != x || inY != y { clamped += 1 }
                worst = max(worst, abs(Double(turned[v * turn.side + u]) - (inX + inY)))
            }
        }
        #expect(worst <= 1, "largest difference from the ramp: \(worst)")
        if region.width == frame.width { #expect(clamped > 0) } else { #expect(clamped == 0) }
    }

    /// A point of the turned image lands on the frame's pixel under it: the region's centre on the
    /// centre, one step along a row down and right, one along a column down and left.
    @Test func aTurnedPointMapsBackToTheFrame() {
        let turn = Turn45(region: PixelRect(x: 100, y: 100, width: 200, height: 200))
        let middle = turn.side / 2
        #expect(turn.framePoint(Point(x: middle, y: middle)) == Point(x: 200, y: 200))
        let along = turn.framePoint(Point(x: middle + 10, y: middle))
        let across = turn.framePoint(Point(x: middle, y: middle + 10))
        #expect(along.x > 200 && along.y > 200 && across.x < 200 && across.y > 200)
    }
}
