import ImageFiles
import Imaging

/// What `snapshot` draws on a frame: the viewport, and each code's outline and text.
/// Lines go just outside what they mark, so that the annotated picture still scans.
enum Overlay {
    static let viewportColor: (r: UInt8, g: UInt8, b: UInt8) = (255, 220, 0)
    static let codeColor: (r: UInt8, g: UInt8, b: UInt8) = (0, 230, 0)
    static let textColor: (r: UInt8, g: UInt8, b: UInt8) = (255, 255, 255)

    /// A code to outline: its corners, and the label listed for it.
    struct Code {
        let corners: [Point]
        let label: String
    }

    /// Draws the viewport (a 2-pixel frame around it) and the codes on `image`.
    static func draw(on image: inout RGBImage, viewport: PixelRect, codes: [Code]) {
        for inset in 1...2 {
            rectangle(
                on: &image, x0: viewport.x - inset, y0: viewport.y - inset,
                x1: viewport.x + viewport.width - 1 + inset, y1: viewport.y + viewport.height - 1 + inset, viewportColor)
        }
        var legend: [String] = []
        for (index, code) in codes.enumerated() where !code.corners.isEmpty {
            let outline = widened(code.corners, by: 6)
            for (start, end) in zip(outline, outline.dropFirst() + [outline[0]]) {
                line(on: &image, from: start, to: end, codeColor)
                line(on: &image, from: Point(x: start.x + 1, y: start.y), to: Point(x: end.x + 1, y: end.y), codeColor)
            }
            let number = "\(index + 1)"
            let top = outline.min { $0.y < $1.y }!
            let label = Point(x: top.x - 4, y: max(1, top.y - 16))
            fill(on: &image, x: label.x - 2, y: label.y - 2, width: number.count * 8 + 3, height: 14, (0, 0, 0))
            text(on: &image, number, at: label, scale: 2)
            legend.append("\(number) \(code.label)")
        }
        // The legend sits in the top-left corner, one line per code, on a dark band.
        let scale = 2
        let lineHeight = 6 * scale
        for (row, entry) in legend.enumerated() {
            let fitted = String(entry.prefix(max(1, (image.width - 4) / (4 * scale))))
            let y = 2 + row * lineHeight
            fill(on: &image, x: 0, y: y - 1, width: fitted.count * 4 * scale + 3, height: lineHeight, (0, 0, 0))
            text(on: &image, fitted, at: Point(x: 2, y: y), scale: scale)
        }
    }

    /// The polygon moved `distance` pixels outward from its centre.
    static func widened(_ corners: [Point], by distance: Double) -> [Point] {
        let cx = Double(corners.map(\.x).reduce(0, +)) / Double(corners.count)
        let cy = Double(corners.map(\.y).reduce(0, +)) / Double(corners.count)
        return corners.map { corner in
            let dx = Double(corner.x) - cx
            let dy = Double(corner.y) - cy
            let length = max((dx * dx + dy * dy).squareRoot(), 1)
            return Point(x: Int((cx + dx * (1 + distance / length)).rounded()), y: Int((cy + dy * (1 + distance / length)).rounded()))
        }
    }

    static func rectangle(on image: inout RGBImage, x0: Int, y0: Int, x1: Int, y1: Int, _ color: (r: UInt8, g: UInt8, b: UInt8)) {
        for x in x0...max(x0, x1) {
            image.set(x: x, y: y0, color)
            image.set(x: x, y: y1, color)
        }
        for y in y0...max(y0, y1) {
            image.set(x: x0, y: y, color)
            image.set(x: x1, y: y, color)
        }
    }

    static func fill(on image: inout RGBImage, x: Int, y: Int, width: Int, height: Int, _ color: (r: UInt8, g: UInt8, b: UInt8)) {
        for row in y..<(y + height) {
            for column in x..<(x + width) { image.set(x: column, y: row, color) }
        }
    }

    /// A straight line (Bresenham).
    static func line(on image: inout RGBImage, from start: Point, to end: Point, _ color: (r: UInt8, g: UInt8, b: UInt8)) {
        var x = start.x
        var y = start.y
        let dx = abs(end.x - start.x)
        let dy = -abs(end.y - start.y)
        let sx = start.x < end.x ? 1 : -1
        let sy = start.y < end.y ? 1 : -1
        var error = dx + dy
        while true {
            image.set(x: x, y: y, color)
            if x == end.x && y == end.y { return }
            let doubled = 2 * error
            if doubled >= dy {
                error += dy
                x += sx
            }
            if doubled <= dx {
                error += dx
                y += sy
            }
        }
    }

    /// Text in the 3x5 pixel font, each pixel drawn as a `scale` x `scale` square.
    static func text(on image: inout RGBImage, _ string: String, at origin: Point, scale: Int) {
        for (index, character) in string.uppercased().enumerated() {
            let glyph = PixelFont.glyph(character)
            for (offset, pixel) in glyph.enumerated() where pixel == "#" {
                let gx = origin.x + (index * 4 + offset % 3) * scale
                let gy = origin.y + (offset / 3) * scale
                fill(on: &image, x: gx, y: gy, width: scale, height: scale, textColor)
            }
        }
    }
}

/// A 3x5 pixel font for labels: digits, capitals and common punctuation; anything else shows as "?".
enum PixelFont {
    /// Fifteen characters per glyph, row by row; "#" is ink.
    static func glyph(_ character: Character) -> Substring {
        (glyphs[character] ?? glyphs["?"]!).filter { $0 != " " }[...]
    }

    private static let glyphs: [Character: String] = [
        "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###", "2": "### ..# ### #.. ###", "3": "### ..# .## ..# ###",
        "4": "#.# #.# ### ..# ..#", "5": "### #.. ### ..# ###", "6": "### #.. ### #.# ###", "7": "### ..# .#. .#. .#.",
        "8": "### #.# ### #.# ###", "9": "### #.# ### ..# ###",
        "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.", "C": ".## #.. #.. #.. .##", "D": "##. #.# #.# #.# ##.",
        "E": "### #.. ##. #.. ###", "F": "### #.. ##. #.. #..", "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#",
        "I": "### .#. .#. .#. ###", "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#", "L": "#.. #.. #.. #.. ###",
        "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#", "O": ".#. #.# #.# #.# .#.", "P": "##. #.# ##. #.. #..",
        "Q": ".#. #.# #.# ##. .##", "R": "##. #.# ##. #.# #.#", "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.",
        "U": "#.# #.# #.# #.# ###", "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#", "X": "#.# #.# .#. #.# #.#",
        "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###",
        " ": "... ... ... ... ...", "-": "... ... ### ... ...", ".": "... ... ... ... .#.", ":": "... .#. ... .#. ...",
        "/": "..# ..# .#. #.. #..", "_": "... ... ... ... ###", "(": "..# .#. .#. .#. ..#", ")": "#.. .#. .#. .#. #..",
        "+": "... .#. ### .#. ...", "=": "... ### ... ### ...", ",": "... ... ... .#. #..", "?": "### ..# .## ... .#.",
        "#": "#.# ### #.# ### #.#", "%": "#.# ..# .#. #.. #.#", "&": ".#. #.# .#. #.# .##", "@": ".#. #.# ### #.. .##",
        "!": ".#. .#. .#. ... .#.", "*": "#.# .#. #.# ... ...", "'": ".#. .#. ... ... ...", "\"": "#.# #.# ... ... ...",
        "<": "..# .#. #.. .#. ..#", ">": "#.. .#. ..# .#. #..", "[": "##. #.. #.. #.. ##.", "]": ".## ..# ..# ..# .##",
        ";": "... .#. ... .#. #..",
    ]
}
