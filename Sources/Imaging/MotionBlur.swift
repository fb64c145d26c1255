/// The blur a code moving past the camera leaves: during one exposure each point of it is smeared
/// along a straight line, so the frame is the sharp image convolved with a box `length` pixels long
/// in the direction of motion. A swipe's blur is mostly this one known kernel, which is what makes
/// it undoable: `estimate` finds the direction and length in the frame itself, and `deblurred`
/// solves for the sharp image.
///
/// - Estimate: along a blur of length L, the derivative of the frame is (u(x) − u(x − L)) / L, so
///   its autocorrelation has a negative peak at lag L (the code's own edges, once shifted), and
///   none before it; a 2D code's modules make a peak of their own at the module size (`estimate`).
/// - Deblur: along each line of that direction, the regularised least squares solution of
///   box ∗ u = b with a smoothness term λ‖∇u‖², by conjugate gradients on the normal equations
///   (a few passes of running sums per iteration, no Fourier transform). Where a box kernel's
///   spectrum is zero, the smoothness term keeps noise from being amplified without bound.
///
/// On an EAN-13 with 2.5 px modules and a real camera's noise, ZBar and zxing-cpp read the frame
/// up to a blur of 1.6 modules and the deblurred frame up to 4.8 (scratch measurements of
/// 2026-11-25, before the motion benchmark).
public struct MotionBlur: Sendable, Hashable {
    /// A direction of motion, as a step between neighbouring pixels: along the rows or the
    /// columns, or along a diagonal, down (`falling`) or up (`rising`) to the right, a step being
    /// √2 px. `estimate` finds blurs along the rows and the columns only (`axes`): a diagonal swipe
    /// blurs both alike.
    public enum Direction: Sendable, Hashable {
        case across, down, falling, rising

        static let axes: [Direction] = [.across, .down]

        /// Whether a step is √2 px, not 1.
        var isDiagonal: Bool { step.dx != 0 && step.dy != 0 }

        var step: (dx: Int, dy: Int) {
            switch self {
            case .across: (1, 0)
            case .down: (0, 1)
            case .falling: (1, 1)
            case .rising: (1, -1)
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

    /// How far the scene moved from one frame to the next, in pixels along the rows (`x`) and the
    /// columns (`y`), as the read pipeline measured it (`SceneMotion`).
    public struct Travel: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }

        /// The scene's motion was measured at a third of its speed at worst: a slow swipe's changed
        /// tiles lag behind the code (the motion benchmark's swipes at 0.25 viewport widths a
        /// second measured at a third to half their speed, at 3 a second at 0.3 to 0.7).
        static let underestimate = 3.0

        /// The direction nearest the scene's motion: an axis when it moved at least twice as far
        /// along it as across it, else a diagonal.
        var nearest: Direction {
            if abs(x) >= 2 * abs(y) { return .across }
            if abs(y) >= 2 * abs(x) { return .down }
            return (x > 0) == (y > 0) ? .falling : .rising
        }

        /// Whether the scene moved too little for any blur worth undoing: the shortest fits neither
        /// direction (`MotionBlur.fits`).
        public var tooShortToBlur: Bool {
            !Direction.axes.contains { MotionBlur(direction: $0, length: MotionBlur.shortest).fits(self) }
        }
    }

    /// Whether this blur fits a scene that moved `travel` between frames: no longer along its
    /// direction than the motion along it (an exposure lasts the frame's interval at most),
    /// allowing for the measurement's underestimate. A linear code's own bars dip the estimate's
    /// autocorrelation like a blur along its reading direction, so an upright Code 128 swiped
    /// slowly across seemed blurred 5 px down the columns, where the scene did not move; undoing
    /// that cost more than a third of such a frame's decode.
    public func fits(_ travel: Travel) -> Bool {
        // The motion along the direction, in its steps (a diagonal step is √2 px).
        let along: Double
        switch direction {
        case .across: along = travel.x
        case .down: along = travel.y
        case .falling: along = (travel.x + travel.y) / 2
        case .rising: along = (travel.x - travel.y) / 2
        }
        return Double(length) <= abs(along) * Travel.underestimate
    }

    /// The blur of `region` of `frame`: none when no blur of at least `shortest` and at most
    /// `longest` pixels along the rows or the columns stands out (a still or blank scene, a
    /// diagonal swipe, or a blur too long to undo).
    ///
    /// Per axis, the autocorrelation R of the derivative along it, relative to R(0), and its first
    /// dip (a local minimum at least half as deep as the deepest, which is below −`dip`). A blurred
    /// code dips at the blur's length along the motion, the derivative being smooth up to it; a 2D code also dips at its module size, along
    /// both axes when it is still and across the motion when it moves, where the blur leaves its
    /// modules sharp. So with a dip on one axis only, the blur is along it; with dips on both, along
    /// the one whose dip is at least 2 pixels longer; with dips at the same lag (a still code, or a
    /// diagonal swipe) there is none to undo.
    ///
    /// Two lengths come back when the dip is shared with a neighbouring lag: the deeper first. A
    /// length wrong by one pixel leaves the code unreadable, so the caller tries both.
    public static func estimate(in frame: Frame, region: PixelRect, longest: Int = 32, dip: Double = 0.08) -> [MotionBlur] {
        estimate(from: dips(in: frame, region: region, longest: longest, dip: dip))
    }

    /// The blurs worth undoing in `region` of a frame whose scene moved `travel` since the frame
    /// before (nil when not measured), in the order to try: the estimated ones that fit the travel
    /// (`fits`); none when it moved too little to blur (`Travel.tooShortToBlur`).
    ///
    /// When the estimate saw dips at the same short lag on both axes (at most 4 px: a longer blur
    /// along a diagonal dips further out, and the short ones do not undo it), the one blur of
    /// `nearShortest` nearest the dip along the scene's motion, in the direction nearest it
    /// (`Travel.nearest`). A blur as long as a 2D code's modules dips where the modules do, so the
    /// estimate cannot tell it from a still code: in the motion benchmark, QR codes of 2.5 px
    /// modules swiped at 1 viewport width a second, 30 fps, were smeared 2.9 px, and 5 of 20 passes
    /// were read on no frame, by ZBar, zxing-cpp or the estimate's deblur (3 right to left, 2
    /// diagonal). Each was read once undone along its motion (2026-11-28). A linear code's bars dip
    /// on its reading axis only, so a slow linear swipe, whose frames reach this look often, is not
    /// given them.
    public static func undoable(in frame: Frame, region: PixelRect, travel: Travel?) -> [MotionBlur] {
        if let travel, travel.tooShortToBlur { return [] }
        let dips = dips(in: frame, region: region)
        let estimated = estimate(from: dips).filter { travel.map($0.fits) ?? true }
        guard estimated.isEmpty, let travel, shareALag(dips), dips.allSatisfy({ $0.lag <= nearShortest.last ?? 0 }) else { return estimated }
        // One length, the one nearest the dip along the motion (both axes' along a diagonal): each
        // deconvolution and its looks cost as much again on every moving frame of a 2D code that
        // reads nothing, and in the motion benchmark's replays the second length read no pass the
        // first had not. A blur lengthens the dip along its way.
        let direction = travel.nearest
        let along = dips.filter { direction.isDiagonal || $0.direction == direction }.map { Double($0.lag) }
        let lag = along.reduce(0, +) / Double(max(along.count, 1))
        guard let length = nearShortest.min(by: { abs(Double($0) - lag) < abs(Double($1) - lag) }) else { return [] }
        let blur = MotionBlur(direction: direction, length: direction.isDiagonal ? Int((Double(length) / 2.0.squareRoot()).rounded()) : length)
        return blur.fits(travel) ? [blur] : []
    }

    /// The blurs one of which is tried along the scene's motion when the estimate sees a 2D code's
    /// modules only, in pixels (along a diagonal, the nearest whole steps: 2 and 3).
    static let nearShortest = [3, 4]

    /// An axis's first dip of the autocorrelation (`estimate`): its lag, and a neighbouring lag
    /// within a tenth of its depth.
    private typealias Dip = (direction: Direction, lag: Int, second: Int?)

    /// Per axis, its first dip.
    private static func dips(in frame: Frame, region: PixelRect, longest: Int = 32, dip: Double = 0.08) -> [Dip] {
        var dips: [Dip] = []
        for direction in Direction.axes {
            let r = autocorrelation(of: frame, in: region, along: direction, longest: longest)
            guard !r.isEmpty else { continue }
            // The first dip at least half as deep as the deepest: along a blur the derivative is smooth
            // up to its length, so the blur's dip comes before any later one of the code's structure.
            guard let deepest = r[2...].min(), deepest < -dip,
                let lag = (2...longest).first(where: { r[$0] <= deepest / 2 && ($0 == longest || r[$0] <= r[$0 + 1]) })
            else { continue }
            // The neighbour within a tenth of the dip's depth, the deeper one.
            let neighbours = [lag - 1, lag + 1].filter { (2...longest).contains($0) }
            let second = neighbours.min { r[$0] < r[$1] }.flatMap { r[$0] < 0.9 * r[lag] ? $0 : nil }
            dips.append((direction, lag, second))
        }
        return dips
    }

    /// Whether both axes dip, at the same lag or neighbouring ones: a still 2D code, a diagonal
    /// swipe, or a blur as long as the modules.
    private static func shareALag(_ dips: [Dip]) -> Bool {
        dips.count == 2 && abs(dips[0].lag - dips[1].lag) < 2
    }

    private static func estimate(from dips: [Dip]) -> [MotionBlur] {
        let blurred: Dip?
        switch dips.count {
        case 1: blurred = dips[0]
        case 2 where !shareALag(dips): blurred = dips.max { $0.lag < $1.lag }
        default: blurred = nil
        }
        guard let blurred, blurred.lag >= shortest else { return [] }
        return ([blurred.lag] + (blurred.second.map { [$0] } ?? [])).filter { $0 >= shortest }.map {
            MotionBlur(direction: blurred.direction, length: $0)
        }
    }

    /// R(0...longest) / R(0) of the derivative along `direction` in `region`, on every other line
    /// across it (a blur's signature is the same on half the lines; along the direction every pixel
    /// counts, or edges on a grid of even pixels would all be missed); empty for a flat region.
    static func autocorrelation(of frame: Frame, in region: PixelRect, along direction: Direction, longest: Int) -> [Double] {
        let base = frame.storage.base.assumingMemoryBound(to: UInt8.self)
        let (dx, dy) = direction.step
        let advance = dy * frame.stride + dx
        var sums = [Int](repeating: 0, count: longest + 1)
        let reach = longest + 1
        guard region.width > dx * reach, region.height > dy * reach else { return [] }
        for y in Swift.stride(from: 0, to: region.height - dy * reach, by: 1 + dx) {
            let row = base + (region.y + y) * frame.stride + region.x
            for x in Swift.stride(from: 0, to: region.width - dx * reach, by: 1 + dy) {
                let at = row + x
                // The derivative at (x, y) is p(x + dx, y + dy) − p(x, y); lags run along the direction.
                let d0 = Int(at[advance]) - Int(at[0])
                guard d0 != 0 else { continue }
                var other = at
                for lag in 0...longest {
                    sums[lag] += d0 * (Int(other[advance]) - Int(other[0]))
                    other += advance
                }
            }
        }
        guard sums[0] > 0 else { return [] }
        return sums.map { Double($0) / Double(sums[0]) }
    }

    /// `region` of `frame`, deblurred: a frame of the region's size. `smoothing` is λ, relative to
    /// the box's own gain; `iterations` of conjugate gradients per line.
    public func deblurred(_ frame: Frame, region: PixelRect, iterations: Int = 15, smoothing: Float = 0.01) -> Frame {
        let width = region.width
        let height = region.height
        var pixels = [UInt8](repeating: 0, count: width * height)
        let base = frame.storage.base.assumingMemoryBound(to: UInt8.self)
        var solver = LineSolver(length: length, smoothing: smoothing)
        // Each line along the direction: its first pixel in the region, and how many it crosses.
        let (dx, dy) = direction.step
        let starts: [(x: Int, y: Int)]
        switch direction {
        case .across: starts = (0..<height).map { (0, $0) }
        case .down: starts = (0..<width).map { ($0, 0) }
        case .falling: starts = (0..<height).map { (0, $0) } + (1..<width).map { ($0, 0) }
        case .rising: starts = (0..<height).map { (0, $0) } + (1..<width).map { ($0, height - 1) }
        }
        let frameStep = dy * frame.stride + dx
        let pixelStep = dy * width + dx
        // The pixels to the region's edge each line leaves by: its right one, or its bottom or top one.
        let lines = starts.map { start in
            (start: start, count: min(dx == 0 ? Int.max : width - start.x, dy == 0 ? Int.max : dy > 0 ? height - start.y : start.y + 1))
        }
        // Lines of one length go through the solver together, a lane each; a batch short of lanes
        // repeats its last line.
        for sameLength in Dictionary(grouping: lines, by: \.count).values {
            for first in stride(from: 0, to: sameLength.count, by: LineSolver.Lanes.scalarCount) {
                let batch = (0..<LineSolver.Lanes.scalarCount).map { sameLength[min(first + $0, sameLength.count - 1)].start }
                let count = sameLength[first].count
                let firsts = batch.map { base + (region.y + $0.y) * frame.stride + region.x + $0.x }
                solver.solve(
                    (0..<count).map { offset in
                        var lanes = LineSolver.Lanes()
                        for lane in 0..<lanes.scalarCount { lanes[lane] = Float(firsts[lane][offset * frameStep]) }
                        return lanes
                    },
                    iterations: iterations)
                for (lane, start) in batch.enumerated() {
                    let origin = start.y * width + start.x
                    for (offset, value) in solver.solution.enumerated() {
                        pixels[origin + offset * pixelStep] = UInt8(max(0, min(255, value[lane].rounded())))
                    }
                }
            }
        }
        return Frame(width: width, height: height, pixels: pixels, timestamp: frame.timestamp, sequence: frame.sequence)
    }
}

/// Lines' deconvolutions, one line per SIMD lane: box ∗ u = b with λ‖∇u‖², by conjugate gradients
/// on the normal equations (boxᵀbox + λ∇ᵀ∇) u = boxᵀ b. Each lane does its own line's arithmetic
/// in the order one line alone would, and stops where that line would, so a frame deblurred comes
/// out the same to the bit. Eight lines at once deblurred the default 360×360 viewport along its
/// rows or columns in 5.5 ms instead of 16 one by one, the most of a moving frame's looks (the
/// motion benchmark's passes replayed by `decode-bench stream`); a diagonal's lines pair up by
/// length only, so it gains little.
struct LineSolver {
    typealias Lanes = SIMD8<Float>
    let length: Int
    let smoothing: Float
    private(set) var solution: [Lanes] = []

    init(length: Int, smoothing: Float) {
        self.length = max(1, length)
        self.smoothing = smoothing
    }

    mutating func solve(_ blurred: [Lanes], iterations: Int) {
        let n = blurred.count
        let mean = blurred.reduce(Lanes(), +) / Lanes(repeating: Float(n))
        let b = blurred.map { $0 - mean }
        var prefix = [Lanes](repeating: Lanes(), count: n + 2 * length + 1)
        var blurredBuffer = [Lanes](repeating: Lanes(), count: n)
        var x = b
        var product = [Lanes](repeating: Lanes(), count: n)
        var residual = [Lanes](repeating: Lanes(), count: n)
        // r = Aᵀb − N x
        Self.box(b, into: &residual, length: length, adjoint: true, prefix: &prefix)
        normal(x, into: &product, blurred: &blurredBuffer, prefix: &prefix)
        for i in 0..<n { residual[i] -= product[i] }
        var direction = residual
        var squared = Self.dot(residual, residual)
        // The lanes still iterating: a line stops once its residual is small or its curvature vanishes.
        var going = squared .> 1e-6
        for _ in 0..<iterations {
            guard any(going) else { break }
            normal(direction, into: &product, blurred: &blurredBuffer, prefix: &prefix)
            let curvature = Self.dot(direction, product)
            going .&= curvature .> 1e-12
            let alpha = squared / curvature
            for i in 0..<n {
                x[i].replace(with: x[i] + alpha * direction[i], where: going)
                residual[i].replace(with: residual[i] - alpha * product[i], where: going)
            }
            let next = Self.dot(residual, residual)
            let beta = next / squared
            for i in 0..<n { direction[i].replace(with: residual[i] + beta * direction[i], where: going) }
            squared.replace(with: next, where: going)
            going .&= squared .> 1e-6
        }
        for i in 0..<n { x[i] += mean }
        solution = x
    }

    /// N u = Aᵀ A u + λ ∇ᵀ ∇ u.
    private func normal(_ u: [Lanes], into out: inout [Lanes], blurred: inout [Lanes], prefix: inout [Lanes]) {
        Self.box(u, into: &blurred, length: length, adjoint: false, prefix: &prefix)
        Self.box(blurred, into: &out, length: length, adjoint: true, prefix: &prefix)
        // ∇u: forward differences, 0 at the end; ∇ᵀr at i is r(i − 1) − r(i), r(−1) = 0.
        var previous = Lanes()
        for i in 0..<u.count {
            let gradient = i + 1 < u.count ? u[i + 1] - u[i] : Lanes()
            out[i] += smoothing * (previous - gradient)
            previous = gradient
        }
    }

    /// The centred box mean of `u` (or its adjoint) over `length` values, the line's ends repeated
    /// beyond it. `prefix` holds the running sums of the line extended by `length` each side.
    private static func box(_ u: [Lanes], into out: inout [Lanes], length k: Int, adjoint: Bool, prefix: inout [Lanes]) {
        let n = u.count
        let low = k / 2
        var sum = Lanes()
        for j in 0..<(n + 2 * k) {
            sum += u[min(max(j - k, 0), n - 1)]
            prefix[j + 1] = sum
        }
        let scale = 1 / Float(k)
        // box: u[x − low ... x − low + k − 1]; adjoint: u[x + low + 1 − k ... x + low].
        let shift = adjoint ? low + 1 : k - low
        for x in 0..<n { out[x] = (prefix[x + shift + k] - prefix[x + shift]) * scale }
    }

    private static func dot(_ a: [Lanes], _ b: [Lanes]) -> Lanes {
        var sum = Lanes()
        for i in 0..<a.count { sum += a[i] * b[i] }
        return sum
    }
}
