/// A region of a frame turned 45°, resampled into a square image whose rows and columns run along
/// the region's diagonals.
///
/// ZBar and zxing-cpp read a linear code along rows and columns, and a line reads it only when it
/// crosses every bar: an EAN-13 whose bars are 0.35 of its width tall is read turned up to about
/// 19° from a row or column, and one with bars 0.7 of its width (the standard's) up to 35°. A code
/// held slanted 30 to 60° is then read by neither, where a presentation scanner reads in every
/// direction. Turned 45°, such a code lies within that angle of a row or column.
public struct Turn45: Sendable {
    /// The side of the turned image: the whole region fits in it.
    public let side: Int
    /// The region's centre in the frame's continuous coordinates (pixel (0, 0) spans 0 to 1).
    private let centreX: Double
    private let centreY: Double

    private static let half = 0.5.squareRoot()

    public init(region: PixelRect) {
        side = Int((Double(region.width + region.height) * Self.half).rounded(.up))
        centreX = Double(region.x) + Double(region.width) / 2
        centreY = Double(region.y) + Double(region.height) / 2
    }

    /// Where the centre of the turned image's pixel `(u, v)` lies in the frame, continuous: one step
    /// along a row of the turned image goes down and right in the frame, one along a column down and left.
    private func frameCoordinates(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
        let (du, dv) = (u + 0.5 - Double(side) / 2, v + 0.5 - Double(side) / 2)
        return (centreX + (du - dv) * Self.half, centreY + (du + dv) * Self.half)
    }

    /// The frame's pixel at the turned image's point `point`.
    public func framePoint(_ point: Point) -> Point {
        let (x, y) = frameCoordinates(Double(point.x), Double(point.y))
        return Point(x: Int(x.rounded(.down)), y: Int(y.rounded(.down)))
    }

    /// Writes the turned image into `pixels`, `side` × `side` row by row: each pixel interpolated
    /// (bilinear) from the frame's four around its centre; beyond the frame's edge, the edge's.
    public func turn(_ frame: Frame, into pixels: UnsafeMutableBufferPointer<UInt8>) {
        precondition(pixels.count >= side * side && frame.width >= 2 && frame.height >= 2, "turned image of \(side)² pixels")
        let base = frame.storage.base.assumingMemoryBound(to: UInt8.self)
        let stride = frame.stride
        // 16.16 fixed point, in pixel-index space (a pixel's centre is its index).
        let (maxX, maxY) = ((frame.width - 2) << 16, (frame.height - 2) << 16)
        let step = Int((Self.half * 65536).rounded())
        for v in 0..<side {
            let start = frameCoordinates(0, Double(v))
            var x = Int(((start.x - 0.5) * 65536).rounded())
            var y = Int(((start.y - 0.5) * 65536).rounded())
            let row = pixels.baseAddress! + v * side
            for u in 0..<side {
                let (cx, cy) = (min(max(x, 0), maxX), min(max(y, 0), maxY))
                let (wx, wy) = ((cx >> 8) & 0xFF, (cy >> 8) & 0xFF)
                let pixel = base + (cy >> 16) * stride + (cx >> 16)
                let top = Int(pixel[0]) * (256 - wx) + Int(pixel[1]) * wx
                let bottom = Int(pixel[stride]) * (256 - wx) + Int(pixel[stride + 1]) * wx
                row[u] = UInt8(truncatingIfNeeded: (top * (256 - wy) + bottom * wy + 32768) >> 16)
                x += step
                y += step
            }
        }
    }
}
