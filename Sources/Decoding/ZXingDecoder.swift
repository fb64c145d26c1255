import CZXing
import ScannerCore

/// Decodes with zxing-cpp through the CZXing shim: DataMatrix, Aztec and PDF417, which ZBar cannot
/// read, QR, and the linear codes but DataBar. Only the viewport's pixels are handed over.
///
/// zxing-cpp 1.4.0 as Debian packages it aborts the process on `assert(lineCount() == 1)` in
/// `Result::operator==`, which compares a result already found with a new one. Two paths reach it
/// with a linear result whose line count is above 1: `ReadBarcodes` merging what its passes found
/// (a large Code 128 read again by the downscaled pass), and the DataBar readers, which set their
/// own line count (stacked DataBar). For matrix codes the comparison returns before the assertion.
/// So linear codes are read in a pass of their own that stops at the first symbol and has no
/// downscaled pass: the merge then never compares anything. DataBar is never enabled (ZBar reads it).
public final class ZXingDecoder: Decoder {
    /// QR, PDF417, DataMatrix and Aztec: every symbol in the region.
    private let matrix: czx_options
    /// The linear codes: the first symbol only.
    private let linear: czx_options
    private let lengths: [Symbology: LengthLimit]
    /// Look again with the global-histogram binarizer when the local-average one found nothing.
    private let binarizerPass: Bool

    /// The symbologies zxing-cpp reads here.
    public static let supported: Set<Symbology> = Set(formats.keys)

    public init(config: DecoderConfig) throws(DecoderError) {
        let refused = config.symbologies.subtracting(Self.supported)
        guard refused.isEmpty else {
            throw DecoderError("zxing-cpp does not read \(refused.map(\.rawValue).sorted().joined(separator: ", ")) here (zxing-cpp 1.4.0 aborts on stacked DataBar); ZBar reads them")
        }
        func options(_ symbologies: Set<Symbology>, rotateAndDownscale: Int32, maxSymbols: Int32) -> czx_options {
            let formats = config.symbologies.intersection(symbologies).reduce(0) { $0 | Self.formats[$1]! }
            return czx_options(formats: formats, try_harder: 1, try_rotate: rotateAndDownscale, try_downscale: rotateAndDownscale, binarizer: 0, max_symbols: maxSymbols)
        }
        matrix = options(Self.matrixCodes, rotateAndDownscale: 1, maxSymbols: 0)
        // Rotated and downscaled passes read no more linear codes in the sample corpus and double
        // the cost of an empty frame; ZBar scans both axes (README, "Two decoders").
        linear = options(Self.supported.subtracting(Self.matrixCodes), rotateAndDownscale: 0, maxSymbols: 1)
        lengths = config.lengths
        binarizerPass = config.preprocessing.contains(.binarizer)
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        try decode(frame, in: region, secondLooks: secondLooks, linearCodes: true)
    }

    /// Without `linearCodes`, only the matrix codes are looked for.
    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool, linearCodes: Bool) throws(DecoderError) -> [Symbol] {
        for binarizer: Int32 in secondLooks && binarizerPass ? [0, 1] : [0] {
            var found = try read(frame, in: region, with: matrix, binarizer: binarizer)
            if linearCodes { found += try read(frame, in: region, with: linear, binarizer: binarizer) }
            if !found.isEmpty { return found }
        }
        return []
    }

    private func read(_ frame: Frame, in region: PixelRect, with options: czx_options, binarizer: Int32) throws(DecoderError) -> [Symbol] {
        guard options.formats != 0 else { return [] }
        var options = options
        options.binarizer = binarizer
        let origin = frame.storage.base.advanced(by: region.y * frame.stride + region.x).assumingMemoryBound(to: UInt8.self)
        var error = [CChar](repeating: 0, count: 256)
        guard let results = czx_read(origin, Int32(region.width), Int32(region.height), Int32(frame.stride), &options, &error, error.count) else {
            throw DecoderError("zxing-cpp failed on frame \(frame.sequence): \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { czx_free(results) }
        return (0..<czx_count(results)).compactMap { index in
            symbol(czx_symbol_at(results, index).pointee, offset: Point(x: region.x, y: region.y))
        }
    }

    private func symbol(_ found: czx_symbol, offset: Point) -> Symbol? {
        guard let symbology = Self.symbologies[found.format] else { return nil }
        // Text that names its character set (ECI) as UTF-8. Otherwise the data as it is, as ZBar
        // gives it: a guessed character set can turn UTF-8 or binary data into mojibake.
        let text = found.has_eci != 0 && ![Int32(CZX_BINARY), Int32(CZX_UNKNOWN_ECI)].contains(found.content_type)
        let bytes = text
            ? Array(UnsafeRawBufferPointer(start: found.text, count: found.text_length))
            : Array(UnsafeBufferPointer(start: found.bytes, count: found.length))
        if let limit = lengths[symbology] {
            if let min = limit.min, bytes.count < min { return nil }
            if let max = limit.max, bytes.count > max { return nil }
        }
        let aim = withUnsafeBytes(of: found.symbology_identifier) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let xs = [found.x.0, found.x.1, found.x.2, found.x.3], ys = [found.y.0, found.y.1, found.y.2, found.y.3]
        let corners = Corners((0..<4).map { Point(x: Int(xs[$0]) + offset.x, y: Int(ys[$0]) + offset.y) })
        let orientation: Orientation = switch (Int(found.orientation) % 360 + 360) % 360 {
        case 0: .up
        case 90: .right
        case 180: .down
        case 270: .left
        default: .unknown
        }
        return Symbol(symbology: symbology, bytes: bytes, isGS1: Self.gs1Identifiers.contains(aim), corners: corners, orientation: orientation, quality: 1)
    }

    /// AIM identifiers that mean FNC1 in first position (GS1 data).
    private static let gs1Identifiers: Set<String> = ["]d2", "]Q3", "]z1"]

    private static let matrixCodes: Set<Symbology> = [.qr, .pdf417, .datamatrix, .aztec]

    private static let formats: [Symbology: Int32] = [
        .qr: Int32(CZX_QRCODE), .pdf417: Int32(CZX_PDF417), .datamatrix: Int32(CZX_DATAMATRIX), .aztec: Int32(CZX_AZTEC),
        .ean13: Int32(CZX_EAN13), .ean8: Int32(CZX_EAN8), .upca: Int32(CZX_UPCA), .upce: Int32(CZX_UPCE), .itf: Int32(CZX_ITF),
        .code39: Int32(CZX_CODE39), .code93: Int32(CZX_CODE93), .code128: Int32(CZX_CODE128), .codabar: Int32(CZX_CODABAR),
    ]

    private static let symbologies: [Int32: Symbology] = Dictionary(uniqueKeysWithValues: formats.map { ($0.value, $0.key) })
}
