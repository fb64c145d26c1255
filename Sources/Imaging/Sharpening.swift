/// Second looks at a still image whose code the libraries did not read as it is: a small one
/// seen closer, and a defocused one with its edges steepened. Both take a region of a frame and
/// return a frame of their own, whose pixel (0, 0) is the region's corner.
extension Frame {
    /// `region` at twice its size on each axis, interpolated with a Lanczos-3 kernel (separable; the
    /// region's edge repeats past it). A code whose modules are 1 to 2.5 px wide gets 2 to 5 px
    /// ones, between which zxing-cpp's binarizer finds the edges it misses at first; pixel (x, y) of
    /// the result is the region's (x / 2 - 0.25, y / 2 - 0.25).
    public func scaledUp(_ region: PixelRect) -> Frame {
        let (width, height) = (region.width, region.height)
        let wideWidth = 2 * width
        var wide = [Float](repeating: 0, count: wideWidth * height)
        let base = storage.base.assumingMemoryBound(to: UInt8.self)
        wide.withUnsafeMutableBufferPointer { wide in
            for y in 0..<height {
                let line = base + (region.y + y) * stride + region.x
                for x in 0..<width {
                    for phase in 0..<2 {
                        var sum: Float = 0
                        for (index, weight) in Self.lanczosWeights[phase].enumerated() {
                            sum += weight * Float(line[Swift.min(Swift.max(x + index - 3, 0), width - 1)])
                        }
                        wide[y * wideWidth + 2 * x + phase] = sum
                    }
                }
            }
        }
        let storage = LumaStorage(count: wideWidth * 2 * height) { pixels in
            wide.withUnsafeBufferPointer { wide in
                for y in 0..<height {
                    for phase in 0..<2 {
                        let row = (2 * y + phase) * wideWidth
                        for x in 0..<wideWidth {
                            var sum: Float = 0
                            for (index, weight) in Self.lanczosWeights[phase].enumerated() {
                                sum += weight * wide[Swift.min(Swift.max(y + index - 3, 0), height - 1) * wideWidth + x]
                            }
                            pixels[row + x] = Self.clamped(sum)
                        }
                    }
                }
            }
        }
        return Frame(width: wideWidth, height: 2 * height, stride: wideWidth, timestamp: timestamp, sequence: sequence, storage: storage)
    }

    /// The Lanczos-3 weights of taps -3...3 about a source pixel, for the result's even pixels
    /// (0.25 before it) and odd ones (0.25 after): L(x) = 3 sin(πx) sin(πx/3) / (πx)² at x = tap ± 0.25,
    /// normalised to sum 1 (`SharpeningTests` computes them again).
    public static let lanczosWeights: [[Float]] = [
        [0.0073395, -0.0676399, 0.2695864, 0.8880793, -0.1325743, 0.0299540, 0.0052549],
        [0.0052549, 0.0299540, -0.1325743, 0.8880793, 0.2695864, -0.0676399, 0.0073395],
    ]

    /// `region` with an unsharp mask: each pixel moved `amount` times its difference from a blur of
    /// about `radius` px around it (three box blurs of that radius, near a Gaussian of σ ≈ 1.15 ×
    /// radius). A code out of focus has its bars and spaces run into grey; this restores the
    /// contrast between a module and its neighbours that ZBar's and zxing-cpp's edge finding needs.
    public func sharpened(_ region: PixelRect, radius: Int = 3, amount: Float = 3) -> Frame {
        let (width, height) = (region.width, region.height)
        let base = storage.base.assumingMemoryBound(to: UInt8.self)
        var original = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            let line = base + (region.y + y) * stride + region.x
            for x in 0..<width { original[y * width + x] = Float(line[x]) }
        }
        var blurred = original
        var scratch = [Float](repeating: 0, count: Swift.max(width, height))
        blurred.withUnsafeMutableBufferPointer { blurred in
            scratch.withUnsafeMutableBufferPointer { scratch in
                for _ in 0..<3 {
                    for y in 0..<height { Self.boxBlur(blurred, first: y * width, step: 1, count: width, radius: radius, scratch: scratch) }
                    for x in 0..<width { Self.boxBlur(blurred, first: x, step: width, count: height, radius: radius, scratch: scratch) }
                }
            }
        }
        let storage = LumaStorage(count: width * height) { pixels in
            for index in 0..<width * height {
                pixels[index] = Self.clamped(original[index] + amount * (original[index] - blurred[index]))
            }
        }
        return Frame(width: width, height: height, stride: width, timestamp: timestamp, sequence: sequence, storage: storage)
    }

    /// The mean of `2 radius + 1` values about each of one line's `count` values (from `first`,
    /// `step` apart), in place; the line's end values repeat past its ends.
    private static func boxBlur(
        _ values: UnsafeMutableBufferPointer<Float>, first: Int, step: Int, count: Int, radius: Int, scratch: UnsafeMutableBufferPointer<Float>
    ) {
        for index in 0..<count { scratch[index] = values[first + index * step] }
        func value(_ index: Int) -> Float { scratch[Swift.min(Swift.max(index, 0), count - 1)] }
        var sum: Float = 0
        for index in -radius...radius { sum += value(index) }
        let size = Float(2 * radius + 1)
        for index in 0..<count {
            values[first + index * step] = sum / size
            sum += value(index + radius + 1) - value(index - radius)
        }
    }

    private static func clamped(_ value: Float) -> UInt8 {
        UInt8(Swift.max(0, Swift.min(255, value.rounded())))
    }
}
