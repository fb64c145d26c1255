import Imaging

/// A barcode symbology. The raw value is the name used in the config file and on the command line.
public enum Symbology: String, Sendable, Hashable, CaseIterable, Codable {
    case ean13, ean8, upca, upce, isbn10, isbn13, ean2, ean5
    case itf, code39, code93, code128, codabar
    case databar
    case databarExpanded = "databar-exp"
    case databarLimited = "databar-ltd"
    case qr, microqr, rmqr, pdf417, datamatrix, aztec

    /// The name zbarimg prints before the colon, so scripts written for zbarimg keep working.
    public var displayName: String {
        switch self {
        case .ean13: "EAN-13"
        case .ean8: "EAN-8"
        case .upca: "UPC-A"
        case .upce: "UPC-E"
        case .isbn10: "ISBN-10"
        case .isbn13: "ISBN-13"
        case .ean2: "EAN-2"
        case .ean5: "EAN-5"
        case .itf: "I2/5"
        case .code39: "CODE-39"
        case .code93: "CODE-93"
        case .code128: "CODE-128"
        case .codabar: "Codabar"
        case .databar: "DataBar"
        case .databarExpanded: "DataBar-Exp"
        case .databarLimited: "DataBar-Ltd"
        case .qr: "QR-Code"
        case .microqr: "Micro-QR"
        case .rmqr: "rMQR"
        case .pdf417: "PDF417"
        case .datamatrix: "DataMatrix"
        case .aztec: "Aztec"
        }
    }

    /// Whether the symbology can only carry digits, so a read can be used at once without parsing.
    public var holdsDigitsOnly: Bool {
        switch self {
        case .ean13, .ean8, .upca, .upce, .isbn10, .isbn13, .ean2, .ean5, .itf, .databar, .databarLimited: true
        default: false
        }
    }

    /// Whether every symbol of the symbology carries a check that a misread fails: a mandatory check
    /// digit or checksum (EAN/UPC, Code 93, Code 128, DataBar, EAN-5's parity) or Reed-Solomon error
    /// correction (the 2D codes). ITF's and Code 39's check digits are optional, Codabar has none
    /// and EAN-2's parity only encodes the value modulo 4: a misread of those can look like a read.
    public var hasMandatoryCheck: Bool {
        switch self {
        case .itf, .code39, .codabar, .ean2: false
        default: true
        }
    }

    /// The AIM symbology identifier (ISO/IEC 15424) for a symbol of this kind.
    public func aimIdentifier(gs1: Bool) -> String {
        switch self {
        case .ean13, .upca, .upce, .isbn13, .isbn10: "]E0"
        case .ean8: "]E4"
        case .ean2, .ean5: "]E3"
        case .itf: "]I0"
        case .code39: "]A0"
        case .code93: "]G0"
        case .code128: gs1 ? "]C1" : "]C0"
        case .codabar: "]F0"
        case .databar, .databarExpanded, .databarLimited: "]e0"
        // ISO/IEC 15424 gives Micro QR and rMQR the QR Code identifier.
        case .qr, .microqr, .rmqr: gs1 ? "]Q3" : "]Q1"
        case .pdf417: "]L2"
        case .datamatrix: gs1 ? "]d2" : "]d1"
        case .aztec: gs1 ? "]z1" : "]z0"
        }
    }

    /// The symbologies enabled when the config says nothing: everything ZBar reads well.
    public static let zbarDefaults: [Symbology] = [
        .ean13, .ean8, .upca, .upce, .itf, .code39, .code93, .code128, .codabar, .databar, .databarExpanded, .qr,
    ]

    /// Looks a symbology up by its config name, or by its display name, case-insensitively.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Symbology.allCases.first(where: { $0.rawValue == lowered || $0.displayName.lowercased() == lowered }) else {
            return nil
        }
        self = match
    }
}

/// One code found in one frame, as a decoder reports it.
public struct Symbol: Sendable, Hashable {
    /// What kind of code it is.
    public var symbology: Symbology
    /// The data, with GS (0x1D) where the symbol has FNC1 as a separator.
    public var bytes: [UInt8]
    /// Whether the symbol is GS1 data (FNC1 in first position).
    public var isGS1: Bool
    /// Where it is in the frame.
    public var corners: Corners
    /// Which way its top edge points.
    public var orientation: Orientation
    /// The decoder's confidence; for ZBar, the number of the image's lines on which it read this
    /// text (a scan of every 4th line, or of a half-size image, counts each line it scanned as the
    /// lines it stands for).
    public var quality: Int

    public init(symbology: Symbology, bytes: [UInt8], isGS1: Bool = false, corners: Corners, orientation: Orientation = .unknown, quality: Int = 1) {
        self.symbology = symbology
        self.bytes = bytes
        self.isGS1 = isGS1
        self.corners = corners
        self.orientation = orientation
        self.quality = quality
    }
}

/// The two decoding libraries.
public enum DecoderLibrary: Sendable, Hashable {
    case zbar, zxing
}

extension Symbology {
    /// Which libraries read this symbology: the capability table. ZBar 0.23.92 reads no 2D code
    /// but QR; zxing-cpp 3.1.1 reports ISBN and the EAN add-ons as nothing of their own. The
    /// decoders' own symbology maps are checked against it (DecodingTests).
    public var readers: Set<DecoderLibrary> {
        switch self {
        case .ean13, .ean8, .upca, .upce, .itf, .code39, .code93, .code128, .codabar, .databar, .databarExpanded, .qr: [.zbar, .zxing]
        case .isbn10, .isbn13, .ean2, .ean5: [.zbar]
        case .databarLimited, .microqr, .rmqr, .pdf417, .datamatrix, .aztec: [.zxing]
        }
    }
}

extension Symbol {
    /// Whether `other` lies where this symbol is: their boxes overlap or come within 4 px. A code
    /// read two ways gives two such symbols; the lines that misread it may be its top or bottom
    /// ones, and ZBar scans every line (every other one at half size).
    public func sharesPlace(with other: Symbol) -> Bool {
        corners.bounds.overlaps(other.corners.bounds, margin: 4)
    }

    /// Whether `other` is this EAN-13 or UPC-A read on other lines across its bars: both read the
    /// same way (their top edges within 10° of parallel), over the same stretch along that way
    /// (three quarters of the shorter read), and apart across it by less than half the longer's
    /// length. An EAN's bars stand about 0.7 of its length tall, so two codes cannot lie that
    /// close; zxing-cpp read a UPC-A turned 270° as its `650402547087` on a few columns of a frame
    /// and as the EAN-13 `8650042547081` on others 46 px beside them (the motion benchmark, 60 fps,
    /// 2 viewport widths a second), boxes that do not overlap.
    public func liesAlongside(_ other: Symbol) -> Bool {
        gtin13 != nil && other.gtin13 != nil && liesAlong(other)
    }

    /// Whether `other` lies on this symbol's bars, read on other lines across them, whatever either
    /// symbology: the geometry of `liesAlongside`.
    public func liesAlong(_ other: Symbol) -> Bool {
        let (mine, theirs) = (corners.points, other.corners.points)
        func direction(_ points: [Point]) -> (x: Double, y: Double)? {
            let (dx, dy) = (Double(points[1].x - points[0].x), Double(points[1].y - points[0].y))
            let length = (dx * dx + dy * dy).squareRoot()
            return length < 1 ? nil : (dx / length, dy / length)
        }
        guard let along = direction(mine), let otherAlong = direction(theirs),
            abs(along.x * otherAlong.x + along.y * otherAlong.y) >= 0.985  // cos 10°
        else { return false }
        func span(_ points: [Point], _ axis: (x: Double, y: Double)) -> ClosedRange<Double> {
            let projected = points.map { Double($0.x) * axis.x + Double($0.y) * axis.y }
            return projected.min()!...projected.max()!
        }
        let (a, b) = (span(mine, along), span(theirs, along))
        let overlap = min(a.upperBound, b.upperBound) - max(a.lowerBound, b.lowerBound)
        let (aLength, bLength) = (a.upperBound - a.lowerBound, b.upperBound - b.lowerBound)
        let (shorter, longer) = (min(aLength, bLength), max(aLength, bLength))
        guard shorter > 0, overlap >= shorter * 3 / 4 else { return false }
        let across = (x: -along.y, y: along.x)
        let (c, d) = (span(mine, across), span(theirs, across))
        let gap = max(c.lowerBound, d.lowerBound) - min(c.upperBound, d.upperBound)
        return gap < longer / 2
    }

    /// The GTIN-13 of an EAN-13, ISBN-13 or UPC-A (a UPC-A's 12 digits with a leading 0), as
    /// digits; nil for any other symbol.
    public var gtin13: [UInt8]? {
        switch (symbology, bytes.count) {
        case (.ean13, 13), (.isbn13, 13): bytes
        case (.upca, 12): Array("0".utf8) + bytes
        default: nil
        }
    }

    /// The fewest modules a linear code of this symbology and data spans, quiet zones left out:
    /// its length in pixels at 1 px a module, finer than any reader resolves. Nil for 2D codes and
    /// DataBar Expanded. Code 128 counts every character at code set C's half width; Code 39, ITF
    /// and Codabar their wide elements at twice the narrow.
    public var leastModules: Int? {
        let characters = bytes.count
        return switch symbology {
        case .ean13, .isbn13, .isbn10, .upca: 95
        case .ean8: 67
        case .upce: 51
        case .ean2: 20
        case .ean5: 47
        // Start, check and stop: 11 + 11 + 13.
        case .code128: 35 + 11 * ((characters + 1) / 2)
        // 12 modules a character, the start and stop ones too, a narrow gap between.
        case .code39: 13 * (characters + 2) - 1
        // 9 a character, with start, two checks and stop, and a terminating bar.
        case .code93: 9 * (characters + 4) + 1
        // 14 a pair of digits; start 4, stop 4.
        case .itf: 7 * characters + 8
        // At least 9 a character, a narrow gap between.
        case .codabar: 10 * characters - 1
        case .databar: 96
        case .databarLimited: 74
        case .databarExpanded, .qr, .microqr, .rmqr, .pdf417, .datamatrix, .aztec: nil
        }
    }

    /// Whether ZBar found this code on one scan line only: it gives a point for each line that read
    /// it, and this box is one point. One line of the whole-frame look across an EAN-13 turned 54°
    /// gave the DataBar `0186517239475450`, and one line across an EAN-13 half out of the viewport
    /// gave the UPC-E `02201788` (the motion benchmark: on two frames, so its confirmation held).
    public var isOneLine: Bool {
        let box = corners.bounds
        return box.width <= 1 && box.height <= 1
    }

    /// Whether this is a linear code that a misread can put another linear code in place of: an
    /// EAN-13 smeared or turned reads as another EAN-13, a UPC-A, an EAN-8, and moving Code 128
    /// bars as an EAN-13. Not 2D codes, whose error correction makes a misread rare, nor the EAN
    /// add-ons, which sit beside their EAN.
    public var misreadsInPlace: Bool {
        switch symbology {
        case .ean13, .ean8, .upca, .upce, .isbn10, .isbn13, .itf, .code39, .code93, .code128, .codabar, .databar, .databarExpanded,
            .databarLimited:
            true
        case .ean2, .ean5, .qr, .microqr, .rmqr, .pdf417, .datamatrix, .aztec: false
        }
    }
}
