import CZXing
import ScannerCore

/// Decodes with zxing-cpp through the CZXing shim: DataMatrix, Aztec and PDF417, which ZBar cannot
/// read, and QR. Only the viewport's pixels are handed over.
///
/// Linear codes are never enabled: zxing-cpp 1.4.0 as Debian packages it aborts the process on
/// `assert(lineCount() == 1)` in `Result::operator==` when ReadBarcodes merges linear results of
/// different line counts (stacked DataBar; a large Code 128 seen again by the downscaled pass).
/// For matrix codes that comparison returns before the assertion, so they are safe.
public final class ZXingDecoder: Decoder {
    private var options: czx_options
    private let lengths: [Symbology: LengthLimit]
    /// Look again with the global-histogram binarizer when the local-average one found nothing.
    private let binarizerPass: Bool

    /// The symbologies zxing-cpp reads here.
    public static let supported: Set<Symbology> = Set(formats.keys)

    public init(config: DecoderConfig) throws(DecoderError) {
        let wanted = config.symbologies.intersection(Self.supported)
        let refused = config.symbologies.subtracting(Self.supported)
        guard refused.isEmpty else {
            throw DecoderError("zxing-cpp reads no linear codes here (\(refused.map(\.rawValue).sorted().joined(separator: ", "))): zxing-cpp 1.4.0 aborts on some of them; ZBar reads them")
        }
        options = czx_options(
            formats: wanted.reduce(0) { $0 | Self.formats[$1]! }, try_harder: 1, try_rotate: 1, try_downscale: 1, binarizer: 0)
        lengths = config.lengths
        binarizerPass = config.preprocessing.contains(.binarizer)
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        guard options.formats != 0 else { return [] }
        options.binarizer = 0
        let found = try read(frame, in: region)
        guard found.isEmpty, secondLooks, binarizerPass else { return found }
        options.binarizer = 1
        return try read(frame, in: region)
    }

    private func read(_ frame: Frame, in region: PixelRect) throws(DecoderError) -> [Symbol] {
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
        let bytes = Array(UnsafeBufferPointer(start: found.bytes, count: found.length))
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

    private static let formats: [Symbology: Int32] = [
        .qr: Int32(CZX_QRCODE), .pdf417: Int32(CZX_PDF417), .datamatrix: Int32(CZX_DATAMATRIX), .aztec: Int32(CZX_AZTEC),
    ]

    private static let symbologies: [Int32: Symbology] = Dictionary(uniqueKeysWithValues: formats.map { ($0.value, $0.key) })
}
