/// A pixel position in a frame; x grows rightwards and y downwards.
public struct Point: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// A width and height in pixels.
public struct Size: Sendable, Hashable, Codable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// An axis-aligned rectangle in pixels, `x..<x+width` by `y..<y+height`.
public struct PixelRect: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Whether `point` lies inside the rectangle.
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }

    /// Whether the two rectangles share a pixel, or come within `margin` pixels of each other.
    public func overlaps(_ other: PixelRect, margin: Int = 0) -> Bool {
        x < other.x + other.width + margin && other.x < x + width + margin && y < other.y + other.height + margin
            && other.y < y + height + margin
    }
}

/// Where a symbol's modules point: the direction of its top edge as seen in the frame.
public enum Orientation: String, Sendable, Codable {
    case up, right, down, left, unknown
}

/// The four corners of a symbol, in reading order of the symbol itself:
/// top-left, top-right, bottom-right, bottom-left. 1D codes get the box their scan lines covered.
public struct Corners: Sendable, Hashable, Codable {
    public var points: [Point]

    public init(_ points: [Point]) {
        precondition(points.count == 4, "corners need four points")
        self.points = points
    }

    /// The mean of the four corners.
    public var centre: Point {
        Point(x: points.map(\.x).reduce(0, +) / 4, y: points.map(\.y).reduce(0, +) / 4)
    }

    /// The smallest axis-aligned box around the corners.
    public var bounds: PixelRect {
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        return PixelRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()! + 1, height: ys.max()! - ys.min()! + 1)
    }

    /// Corners for a box seen in `orientation`, so that the first corner is the symbol's own top-left.
    public init(box: PixelRect, orientation: Orientation) {
        let left = box.x
        let top = box.y
        let right = box.x + box.width - 1
        let bottom = box.y + box.height - 1
        let clockwise = [Point(x: left, y: top), Point(x: right, y: top), Point(x: right, y: bottom), Point(x: left, y: bottom)]
        let shift =
            switch orientation {
            case .up, .unknown: 0
            case .right: 1  // top edge turned to the frame's right: the symbol's top-left sits top-right
            case .down: 2
            case .left: 3
            }
        self.init((0..<4).map { clockwise[($0 + shift) % 4] })
    }
}
