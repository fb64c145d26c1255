import ConfigReading
import Imaging

/// The viewport editor's verdict: the `viewport:` lines for a rectangle (normalised to the frame,
/// three decimals), and whether the config reader — the very one check-config and the daemon run —
/// takes them, or why not.
struct ViewportCheck: Encodable, Equatable {
    let ok: Bool
    let lines: String
    let error: String?

    /// What the page sends: the lines as pasted, or the rectangle's numbers.
    struct Request: Decodable {
        let lines: String?
        let x: Double?
        let y: Double?
        let width: Double?
        let height: Double?
    }

    init(ok: Bool, lines: String, error: String?) {
        self.ok = ok
        self.lines = lines
        self.error = error
    }

    init(_ request: Request) {
        if let x = request.x, let y = request.y, let width = request.width, let height = request.height {
            self.init(x: x, y: y, width: width, height: height)
        } else if let lines = request.lines {
            self.init(lines: lines)
        } else {
            self.init(ok: false, lines: "", error: "send the viewport lines, or x, y, width and height")
        }
    }

    /// The lines for a rectangle, and their verdict.
    init(x: Double, y: Double, width: Double, height: Double) {
        let numbers = [x, y, width, height]
        guard numbers.allSatisfy({ $0.isFinite && abs($0) <= 1000 }) else {
            self.init(ok: false, lines: "", error: "x, y, width and height are fractions of the frame, 0...1")
            return
        }
        self.init(lines: "viewport:\n  rect: [\(numbers.map(Self.decimal).joined(separator: ", "))]\n")
    }

    /// The verdict on config lines holding `viewport:` and nothing else.
    init(lines: String) {
        guard lines.utf8.count <= 4096 else {
            self.init(ok: false, lines: "", error: "more than 4 KiB: paste the viewport lines only")
            return
        }
        do throws(ConfigError) {
            var top = try ConfigText.top(lines, file: "lines")
            guard let value = top.value("viewport") else { throw top.error("no viewport: key") }
            _ = try Viewport(value)
            try top.finish()
            self.init(ok: true, lines: lines, error: nil)
        } catch {
            self.init(ok: false, lines: lines, error: error.description)
        }
    }

    /// `value` with three decimals, as the lines show it.
    static func decimal(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let whole = abs(thousandths) / 1000
        let fraction = String(abs(thousandths) % 1000)
        return (thousandths < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
