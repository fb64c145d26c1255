/// A linear code seen across its bars: the mean of lines along its axis, over a band of its bars'
/// height, sampled every half pixel.
///
/// A scan line across a slanted code meets each bar at another height and through one pixel's
/// noise. Lines along the code's axis (across the bars, the direction of the image's gradients
/// there), averaged over the band, give one profile with each edge where the bars put it: an image
/// one library can read for a second opinion on a code read through a resampled image.
public struct BarProfile: Sendable {
    /// The profile, left to right along the axis.
    public let samples: [UInt8]
    /// The axis as a unit vector (x, y) in the frame, as the gradients give it (either way along it).
    public let axis: (x: Double, y: Double)

    /// The profile of the bars about `box`'s centre: the axis measured over `box` (its pixels'
    /// gradients), the lines `reach` px each way from the centre, over `band` px each side of it.
    /// Nil when `box` has no edges to measure.
    public init?(frame: Frame, around box: PixelRect, reach: Int, band: Int = 10) {
        guard frame.width >= 3, frame.height >= 3 else { return nil }
        let (left, top) = (max(box.x, 1), max(box.y, 1))
        let (right, bottom) = (min(box.x + box.width - 1, frame.width - 2), min(box.y + box.height - 1, frame.height - 2))
        guard left < right, top < bottom else { return nil }
        // The structure tensor: the gradients' squares and product, summed. Its main direction is
        // across the bars. Scharr's kernels keep the angle of sharp, narrow bars to under a degree
        // (central differences were 4° off at 2.5 px a bar).
        var (xx, yy, xy) = (0.0, 0.0, 0.0)
        for y in top...bottom {
            for x in left...right {
                func pixel(_ dx: Int, _ dy: Int) -> Int { Int(frame[x + dx, y + dy]) }
                let gx = 3 * (pixel(1, -1) + pixel(1, 1) - pixel(-1, -1) - pixel(-1, 1)) + 10 * (pixel(1, 0) - pixel(-1, 0))
                let gy = 3 * (pixel(-1, 1) + pixel(1, 1) - pixel(-1, -1) - pixel(1, -1)) + 10 * (pixel(0, 1) - pixel(0, -1))
                (xx, yy, xy) = (xx + Double(gx * gx), yy + Double(gy * gy), xy + Double(gx * gy))
            }
        }
        // The tensor's main direction at twice its angle is (xx - yy, 2xy); the half angle's
        // cosine and sine follow without trigonometry.
        let double = ((xx - yy) * (xx - yy) + 4 * xy * xy).squareRoot()
        guard double > 0 else { return nil }
        let cosine2 = (xx - yy) / double
        let c = ((1 + cosine2) / 2).squareRoot()
        let s = (xy < 0 ? -1.0 : 1.0) * ((1 - cosine2) / 2).squareRoot()
        axis = (c, s)
        // Pixel-index coordinates: a pixel's centre is its index.
        let centreX = Double(box.x) + Double(box.width - 1) / 2
        let centreY = Double(box.y) + Double(box.height - 1) / 2
        let (maxX, maxY) = (Double(frame.width - 1) - 0.001, Double(frame.height - 1) - 0.001)
        let lines = 2 * band + 1
        samples = (0..<(4 * reach)).map { index in
            let t = Double(index) / 2 - Double(reach)
            var sum = 0.0
            for line in -band...band {
                let n = Double(line)
                let x = min(max(centreX + t * c - n * s, 0), maxX)
                let y = min(max(centreY + t * s + n * c, 0), maxY)
                let (x0, y0) = (Int(x), Int(y))
                let (fx, fy) = (x - Double(x0), y - Double(y0))
                let upper = Double(frame[x0, y0]) * (1 - fx) + Double(frame[x0 + 1, y0]) * fx
                let lower = Double(frame[x0, y0 + 1]) * (1 - fx) + Double(frame[x0 + 1, y0 + 1]) * fx
                sum += upper * (1 - fy) + lower * fy
            }
            return UInt8((sum / Double(lines)).rounded())
        }
    }
}
