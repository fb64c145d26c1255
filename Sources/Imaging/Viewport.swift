/// The region of the frame where codes are recognised. Everything outside is never decoded or reported.
///
/// A code counts as inside when the centre of its corners lies inside the viewport, so a code that
/// only grazes the edge is not read.
public enum Viewport: Sendable, Hashable {
    /// A centred square whose side is `fraction` of the frame's short side.
    case square(fraction: Double)
    /// A rectangle in coordinates normalised to the frame, 0...1 on each axis.
    case rect(x: Double, y: Double, width: Double, height: Double)

    /// The default: a centred square, 3/4 of the frame's short side.
    public static let standard = Viewport.square(fraction: 0.75)
    /// The whole frame.
    public static let full = Viewport.rect(x: 0, y: 0, width: 1, height: 1)

    /// The viewport in pixels for a frame of `size`, clamped to the frame and never empty.
    public func pixels(in size: Size) -> PixelRect {
        switch self {
        case .square(let fraction):
            let side = max(1, min(Int((Double(min(size.width, size.height)) * fraction).rounded()), min(size.width, size.height)))
            return PixelRect(x: (size.width - side) / 2, y: (size.height - side) / 2, width: side, height: side)
        case .rect(let x, let y, let width, let height):
            let left = Int((x * Double(size.width)).rounded())
            let top = Int((y * Double(size.height)).rounded())
            let right = Int(((x + width) * Double(size.width)).rounded())
            let bottom = Int(((y + height) * Double(size.height)).rounded())
            let clampedLeft = min(max(left, 0), size.width - 1)
            let clampedTop = min(max(top, 0), size.height - 1)
            return PixelRect(
                x: clampedLeft, y: clampedTop,
                width: max(1, min(right, size.width) - clampedLeft),
                height: max(1, min(bottom, size.height) - clampedTop))
        }
    }

    /// Whether a code with these corners, in a frame of `size`, is inside the viewport.
    public func admits(_ corners: Corners, in size: Size) -> Bool {
        pixels(in: size).contains(corners.centre)
    }

    /// The reason a viewport's numbers are not usable, or nil when they are.
    public var problem: String? {
        switch self {
        case .square(let fraction):
            return fraction > 0 && fraction <= 1 ? nil : "square fraction must be in (0, 1], got \(fraction)"
        case .rect(let x, let y, let width, let height):
            guard [x, y, width, height].allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
                return "rect values must be within 0...1"
            }
            guard width > 0, height > 0 else { return "rect width and height must be above 0" }
            guard x + width <= 1.0001, y + height <= 1.0001 else { return "rect must stay inside the frame (x+width and y+height at most 1)" }
            return nil
        }
    }

    /// Parses the command-line form: `square`, `square:F`, `full`, or `X,Y,W,H` (normalised).
    public init(parsing text: String) throws(ViewportSyntaxError) {
        let trimmed = text.trimmingWhitespace()
        if trimmed == "full" {
            self = .full
        } else if trimmed == "square" {
            self = .standard
        } else if trimmed.hasPrefix("square:"), let fraction = Double(trimmed.dropFirst("square:".count)) {
            self = .square(fraction: fraction)
        } else {
            let parts = trimmed.split(separator: ",").map { Double(String($0).trimmingWhitespace()) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else {
                throw ViewportSyntaxError(text: text, reason: "expected square, square:FRACTION, full or X,Y,WIDTH,HEIGHT")
            }
            self = .rect(x: x, y: y, width: w, height: h)
        }
        if let problem { throw ViewportSyntaxError(text: text, reason: problem) }
    }
}

/// A viewport written in a form that cannot be used.
public struct ViewportSyntaxError: Error, CustomStringConvertible {
    public let text: String
    public let reason: String
    public var description: String { "invalid viewport '\(text)': \(reason)" }
}

extension StringProtocol {
    /// The string without leading and trailing spaces, tabs and newlines.
    public func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
