/// The blur a code moving past the camera leaves: during one exposure each point of it is smeared
/// along a straight line, so the frame is the sharp image convolved with a box `length` pixels long
/// in the direction of motion. A swipe's blur is mostly this one known kernel, which is what makes
/// it undoable: `estimate` finds the direction and length in the frame itself, and `deblurred`
/// solves for the sharp image.
///
/// - Estimate: along a blur of length L, the derivative of the frame is (u(x) − u(x − L)) / L, so
///   its autocorrelation has a deep negative peak at lag L (the code's own edges, once shifted),
///   and it is smooth (positive at lag 1). Across the blur, a code's derivative is spikes.
/// - Deblur: along each line of that direction, the regularised least squares solution of
///   box ∗ u = b with a smoothness term λ‖∇u‖², by conjugate gradients on the normal equations
///   (a few passes of running sums per iteration, no Fourier transform). Where a box kernel's
///   spectrum is zero, the smoothness term keeps noise from being amplified without bound.
///
/// On an EAN-13 with 2.5 px modules and a real camera's noise, ZBar and zxing-cpp read the frame
/// up to a blur of 1.6 modules and the deblurred frame up to 4.8 (scratch measurements of
/// 2026-11-25, before the motion benchmark).
public struct MotionBlur: Sendable, Hashable {
    /// A direction of motion, as a step between neighbouring pixels: along the rows or the columns.
    /// (A diagonal swipe is not estimated yet: a 2D code's modules make dips of their own at the
    /// module size on the directions across its blur, which this estimate cannot yet tell from the
    /// blur's.)
    public enum Direction: Sendable, Hashable, CaseIterable {
        case across, down

        var step: (dx: Int, dy: Int) {
            switch self {
            case .across: (1, 0)
            case .down: (0, 1)
            }
        }
    }

    public var direction: Direction
    /// The box's length, in steps of `direction`.
    public var length: Int

    public init(direction: Direction, length: Int) {
        self.direction = direction
        self.length = length
    }

    /// The shortest blur worth undoing: both libraries read through less.
    public static let shortest = 3

    /// The blur of `region` of `frame`, or nil when none of at least `shortest` and at most
    /// `longest` steps stands out (a still or blank scene, or a blur too long to undo).
    ///
    /// Per direction, the autocorrelation R of the derivative along it, relative to R(0): blurred
    /// along a direction, the derivative is smooth (R(1) well above 0) and dips at the blur's length
    /// (below −`dip`); a sharp code's derivative is spikes (R(1) near 0) whose dip is at its module
    /// size. Of the directions that look blurred, the blur is along the one with the least
    /// derivative energy per unit of distance, the one the smear flattened most.
    ///
    /// Two lengths come back when the dip is shared with a neighbouring lag (a code whose modules
    /// are about as long as the blur blunts it): the deeper first. A wrong length by one pixel
    /// leaves the code unreadable, so the caller tries both.
    public static func estimate(in frame: Frame, region: PixelRect, longest: Int = 32, dip: Double = 0.15) -> [MotionBlur] {
        var best: (blurs: [MotionBlur], energy: Double)?
        let base = frame.storage.base.assumingMemoryBound(to: UInt8.self)
        let stride = frame.stride
        // Every other row and column: a blur's signature is the same on a quarter of the pixels.
        let sampling = 2
        var sums = [Int](repeating: 0, count: longest + 1)
        for direction in Direction.allCases {
            let (dx, dy) = direction.step
            for lag in sums.indices { sums[lag] = 0 }
            var count = 0
            // The derivative at (x, y) is p(x + dx, y + dy) − p(x, y); lags run along the direction.
            let reach = longest + 1
            let xs = (dx < 0 ? reach : 0)..<(region.width - (dx > 0 ? reach : 0))
            let ys = (dy < 0 ? reach : 0)..<(region.height - (dy > 0 ? reach : 0))
            guard !xs.isEmpty, !ys.isEmpty else { continue }
            for y in Swift.stride(from: ys.lowerBound, to: ys.upperBound, by: sampling) {
                let row = base + (region.y + y) * stride + region.x
                for x in Swift.stride(from: xs.lowerBound, to: xs.upperBound, by: sampling) {
                    let at = row + x
                    let d0 = Int(at[dy * stride + dx]) - Int(at[0])
                    count += 1
                    guard d0 != 0 else { continue }
                    var other = at
                    let advance = dy * stride + dx
                    for lag in 0...longest {
                        sums[lag] += d0 * (Int(other[advance]) - Int(other[0]))
                        other += advance
                    }
                }
            }
            guard count > 0, sums[0] > 0 else { continue }
            let zero = Double(sums[0])
            guard Double(sums[1]) / zero > dip else { continue }
            var deepest = (lag: 0, depth: 0.0)
            for lag in 2...longest where Double(sums[lag]) / zero < deepest.depth { deepest = (lag, Double(sums[lag]) / zero) }
            guard deepest.lag >= shortest, deepest.depth < -dip else { continue }
            let energy = zero / Double(count * (dx * dx + dy * dy))
            guard energy < best?.energy ?? .infinity else { continue }
            // The neighbour within a tenth of the dip's depth, the deeper one.
            let neighbours = [deepest.lag - 1, deepest.lag + 1].filter { (2...longest).contains($0) }
            let second = neighbours.min { sums[$0] < sums[$1] }.flatMap { Double(sums[$0]) / zero < 0.9 * deepest.depth ? $0 : nil }
            let lengths = [deepest.lag] + (second.map { [$0] } ?? [])
            best = (lengths.map { MotionBlur(direction: direction, length: $0) }, energy)
        }
        return best?.blurs ?? []
    }

    /// `region` of `frame`, deblurred: a frame of the region's size. `smoothing` is λ, relative to
    /// the box's own gain; `iterations` of conjugate gradients per line.
    public func deblurred(_ frame: Frame, region: PixelRect, iterations: Int = 15, smoothing: Float = 0.01) -> Frame {
        let width = region.width
        let height = region.height
        var pixels = [UInt8](repeating: 0, count: width * height)
        let base = frame.storage.base.assumingMemoryBound(to: UInt8.self)
        var line = LineSolver(length: length, smoothing: smoothing)
        let (dx, dy) = direction.step
        // Every line of the direction through the region, by its first pixel.
        let starts: [(x: Int, y: Int)] = dy == 0 ? (0..<height).map { (0, $0) } : (0..<width).map { ($0, 0) }
        var indices: [Int] = []
        for start in starts {
            indices.removeAll(keepingCapacity: true)
            var (x, y) = start
            while x >= 0, x < width, y >= 0, y < height {
                indices.append(y * width + x)
                (x, y) = (x + dx, y + dy)
            }
            guard indices.count > 1 else {
                for index in indices { pixels[index] = base[(region.y + index / width) * frame.stride + region.x + index % width] }
                continue
            }
            line.solve(indices.map { Float(base[(region.y + $0 / width) * frame.stride + region.x + $0 % width]) }, iterations: iterations)
            for (index, value) in zip(indices, line.solution) { pixels[index] = UInt8(max(0, min(255, value.rounded()))) }
        }
        return Frame(width: width, height: height, pixels: pixels, timestamp: frame.timestamp, sequence: frame.sequence)
    }
}

/// One line's deconvolution: box ∗ u = b with λ‖∇u‖², by conjugate gradients on the normal
/// equations (boxᵀbox + λ∇ᵀ∇) u = boxᵀ b.
struct LineSolver {
    let length: Int
    let smoothing: Float
    private(set) var solution: [Float] = []

    init(length: Int, smoothing: Float) {
        self.length = max(1, length)
        self.smoothing = smoothing
    }

    mutating func solve(_ blurred: [Float], iterations: Int) {
        let n = blurred.count
        let mean = blurred.reduce(0, +) / Float(n)
        let b = blurred.map { $0 - mean }
        var prefix = [Float](repeating: 0, count: n + 2 * length + 1)
        var blurredBuffer = [Float](repeating: 0, count: n)
        var x = b
        var product = [Float](repeating: 0, count: n)
        var residual = [Float](repeating: 0, count: n)
        // r = Aᵀb − N x
        Self.box(b, into: &residual, length: length, adjoint: true, prefix: &prefix)
        normal(x, into: &product, blurred: &blurredBuffer, prefix: &prefix)
        for i in 0..<n { residual[i] -= product[i] }
        var direction = residual
        var squared = Self.dot(residual, residual)
        for _ in 0..<iterations where squared > 1e-6 {
            normal(direction, into: &product, blurred: &blurredBuffer, prefix: &prefix)
            let curvature = Self.dot(direction, product)
            guard curvature > 1e-12 else { break }
            let alpha = squared / curvature
            for i in 0..<n {
                x[i] += alpha * direction[i]
                residual[i] -= alpha * product[i]
            }
            let next = Self.dot(residual, residual)
            let beta = next / squared
            for i in 0..<n { direction[i] = residual[i] + beta * direction[i] }
            squared = next
        }
        for i in 0..<n { x[i] += mean }
        solution = x
    }

    /// N u = Aᵀ A u + λ ∇ᵀ ∇ u.
    private func normal(_ u: [Float], into out: inout [Float], blurred: inout [Float], prefix: inout [Float]) {
        Self.box(u, into: &blurred, length: length, adjoint: false, prefix: &prefix)
        Self.box(blurred, into: &out, length: length, adjoint: true, prefix: &prefix)
        // ∇u: forward differences, 0 at the end; ∇ᵀr at i is r(i − 1) − r(i), r(−1) = 0.
        var previous: Float = 0
        for i in 0..<u.count {
            let gradient = i + 1 < u.count ? u[i + 1] - u[i] : 0
            out[i] += smoothing * (previous - gradient)
            previous = gradient
        }
    }

    /// The centred box mean of `u` (or its adjoint) over `length` values, the line's ends repeated
    /// beyond it. `prefix` holds the running sums of the line extended by `length` each side.
    private static func box(_ u: [Float], into out: inout [Float], length k: Int, adjoint: Bool, prefix: inout [Float]) {
        let n = u.count
        let low = k / 2
        var sum: Float = 0
        for j in 0..<(n + 2 * k) {
            sum += u[min(max(j - k, 0), n - 1)]
            prefix[j + 1] = sum
        }
        let scale = 1 / Float(k)
        // box: u[x − low ... x − low + k − 1]; adjoint: u[x + low + 1 − k ... x + low].
        let shift = adjoint ? low + 1 : k - low
        for x in 0..<n { out[x] = (prefix[x + shift + k] - prefix[x + shift]) * scale }
    }

    private static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var sum: Float = 0
        for i in 0..<a.count { sum += a[i] * b[i] }
        return sum
    }
}
