import CZXing
import Codes
import Imaging

/// Decodes with zxing-cpp 3 through its own C API (`ZXingC.h`, built by `scripts/zxing-cpp`):
/// DataMatrix, Aztec, PDF417, Micro QR, rMQR and DataBar Limited, which ZBar cannot read, QR,
/// DataBar and the linear codes. Only the viewport's pixels are handed over.
public final class ZXingDecoder: Decoder {
    /// Every symbology the config enables.
    private let all: OpaquePointer?
    private let symbologies: Set<Symbology>
    /// Only those ZBar cannot read, for engine both once ZBar has found something.
    private let zbarCannot: OpaquePointer?
    /// Only the linear codes, with tryRotate (`Pass.columns`).
    private let linear: OpaquePointer?
    /// Whether every enabled symbology is one that only zxing-cpp reads (then `all` is `zbarCannot`'s set).
    private let onlyZXingCodes: Bool
    private let lengths: [Symbology: LengthLimit]
    /// Look again with the global-histogram binarizer when the local-average one found nothing.
    private let binarizerPass: Bool
    /// zxing-cpp's own inverted pass (tryInvert) on a second look, as ZBar's inverted pass.
    private let invertedPass: Bool

    /// The symbologies zxing-cpp reads here.
    public static let supported: Set<Symbology> = Set(formats.keys)

    public init(config: DecoderConfig) throws(DecoderError) {
        if let refusal = DecoderEngine.zxing.refusal(for: config.symbologies) { throw DecoderError(refusal) }
        all = Self.options(config.symbologies)
        symbologies = config.symbologies
        zbarCannot = Self.options(config.symbologies.intersection(DecoderEngine.zxingOnly))
        linear = Self.options(config.symbologies.subtracting(Self.matrixCodes))
        if let linear {
            ZXing_ReaderOptions_setTryRotate(linear, true)
            ZXing_ReaderOptions_setBinarizer(linear, ZXing_Binarizer_LocalAverage)
        }
        onlyZXingCodes = config.symbologies.isSubset(of: DecoderEngine.zxingOnly)
        lengths = config.lengths
        binarizerPass = config.preprocessing.contains(.binarizer)
        invertedPass = config.preprocessing.contains(.inverted)
    }

    deinit {
        ZXing_ReaderOptions_delete(all)
        ZXing_ReaderOptions_delete(zbarCannot)
        ZXing_ReaderOptions_delete(linear)
    }

    /// The 2D codes (stacked and matrix), which zxing-cpp finds whatever their turn (a Data Matrix
    /// needs tryRotate past 45°, and gets it in `decode(_:in:pass:linearCodes:)`).
    private static let matrixCodes: Set<Symbology> = [.qr, .microqr, .rmqr, .pdf417, .datamatrix, .aztec]

    /// Reader options for `symbologies`, or nil when there is nothing to look for.
    private static func options(_ symbologies: Set<Symbology>) -> OpaquePointer? {
        let chosen = symbologies.flatMap { formats[$0]! }
        guard !chosen.isEmpty, let options = ZXing_ReaderOptions_new() else { return nil }
        ZXing_ReaderOptions_setFormats(options, chosen, Int32(chosen.count))
        // tryRotate, tryInvert and the binarizer are set per pass.
        ZXing_ReaderOptions_setTryHarder(options, true)
        ZXing_ReaderOptions_setTryDownscale(options, true)
        // The data as encoded, or as UTF-8 when the symbol names its character set (no GS1 brackets).
        ZXing_ReaderOptions_setTextMode(options, ZXing_TextMode_Plain)
        return options
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        try decode(frame, in: region, secondLooks: secondLooks, linearCodes: true)
    }

    /// Without `linearCodes`, only the symbologies ZBar cannot read are looked for. On one frame,
    /// the second looks include the first pass: tryInvert reads the frame as it is and inverted.
    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool, linearCodes: Bool) throws(DecoderError) -> [Symbol] {
        try decode(frame, in: region, pass: secondLooks ? .second : .first, linearCodes: linearCodes)
    }

    /// One pass over the frame. A stream gives the two passes to two frames, so that no frame costs
    /// more than ZBar's (docs/configuration.md, "Two decoders").
    public enum Pass: Sendable {
        /// Rows and columns as the frame has them (no tryRotate), dark on light, the local-average binarizer.
        case first
        /// What the first pass leaves: tryRotate, tryInvert and the global-histogram binarizer, as
        /// the config's second looks ask. tryRotate is the dearest option (it doubles the cost of a
        /// pass, decode-bench frames) and only a code turned 90° needs it.
        case second
        /// The linear codes alone, with tryRotate: a code turned about 90°, whose bars run along the
        /// rows. For a moving scene, whose frames get no second looks.
        case columns
    }

    /// One pass; without `linearCodes`, only the symbologies ZBar cannot read are looked for.
    public func decode(_ frame: Frame, in region: PixelRect, pass: Pass, linearCodes: Bool) throws(DecoderError) -> [Symbol] {
        if pass == .columns {
            guard linearCodes, let linear else { return [] }
            return try read(frame, in: region, with: linear)
        }
        guard let options = linearCodes ? all : zbarCannot else { return [] }
        let second = pass == .second
        // zxing-cpp 3.1.1 finds a Data Matrix turned more than about 45° only with tryRotate, which
        // costs little for the codes only zxing-cpp reads: a first pass looks for those turned.
        let turned = second || !linearCodes || onlyZXingCodes
        ZXing_ReaderOptions_setTryRotate(options, turned)
        ZXing_ReaderOptions_setTryInvert(options, second && invertedPass)
        let binarizers =
            !second
            ? [ZXing_Binarizer_LocalAverage]
            : binarizerPass ? [ZXing_Binarizer_LocalAverage, ZXing_Binarizer_GlobalHistogram] : [ZXing_Binarizer_LocalAverage]
        for binarizer in binarizers {
            ZXing_ReaderOptions_setBinarizer(options, binarizer)
            let found = try read(frame, in: region, with: options)
            if !found.isEmpty { return found }
        }
        // A first pass over every symbology looked at linear codes unturned: it looks again for
        // what only zxing-cpp reads, turned (a Data Matrix swiped past at 54° is read on no frame
        // otherwise, in the motion benchmark).
        guard !turned, let rest = zbarCannot else { return [] }
        ZXing_ReaderOptions_setTryRotate(rest, true)
        ZXing_ReaderOptions_setTryInvert(rest, false)
        ZXing_ReaderOptions_setBinarizer(rest, ZXing_Binarizer_LocalAverage)
        return try read(frame, in: region, with: rest)
    }

    private func read(_ frame: Frame, in region: PixelRect, with options: OpaquePointer) throws(DecoderError) -> [Symbol] {
        let origin = frame.storage.base.advanced(by: region.y * frame.stride + region.x).assumingMemoryBound(to: UInt8.self)
        let image = ZXing_ImageView_new(origin, Int32(region.width), Int32(region.height), ZXing_ImageFormat_Lum, Int32(frame.stride), 1)
        defer { ZXing_ImageView_delete(image) }
        guard let image, let results = ZXing_ReadBarcodes(image, options) else {
            let message = ZXing_LastErrorMsg()
            defer { ZXing_free(message) }
            throw DecoderError("zxing-cpp failed on frame \(frame.sequence): \(message.map { String(cString: $0) } ?? "no message")")
        }
        defer { ZXing_Barcodes_delete(results) }
        return (0..<ZXing_Barcodes_size(results)).compactMap { index in
            ZXing_Barcodes_at(results, index).flatMap { symbol($0, offset: Point(x: region.x, y: region.y)) }
        }
    }

    private func symbol(_ barcode: OpaquePointer, offset: Point) -> Symbol? {
        guard var symbology = Self.symbology(of: ZXing_Barcode_format(barcode)), symbologies.contains(symbology) else { return nil }
        var bytes = Self.data(barcode)
        // An EAN-13 with number system 0 is a UPC-A when UPC-A is read, as ZBar reports it.
        if symbology == .ean13, symbologies.contains(.upca), bytes.count == 13, bytes.first == UInt8(ascii: "0") {
            symbology = .upca
        }
        bytes = Self.retailText(symbology, bytes, barcode)
        // A code that holds nothing is nothing a till can use (ZBar gives empty Code 128s).
        guard !bytes.isEmpty else { return nil }
        if let limit = lengths[symbology] {
            if let min = limit.min, bytes.count < min { return nil }
            if let max = limit.max, bytes.count > max { return nil }
        }
        let aim = Self.string(ZXing_Barcode_symbologyIdentifier(barcode))
        let position = ZXing_Barcode_position(barcode)
        let corners = Corners(
            [position.topLeft, position.topRight, position.bottomRight, position.bottomLeft].map {
                Point(x: Int($0.x) + offset.x, y: Int($0.y) + offset.y)
            })
        let orientation: Orientation =
            switch (Int(ZXing_Barcode_orientation(barcode)) % 360 + 360) % 360 {
            case 0: .up
            case 90: .right
            case 180: .down
            case 270: .left
            default: .unknown
            }
        return Symbol(symbology: symbology, bytes: bytes, isGS1: Self.gs1Identifiers.contains(aim), corners: corners, orientation: orientation, quality: 1)
    }

    /// Text that names its character set (ECI) as UTF-8. Otherwise the data as it is, as ZBar
    /// gives it: a guessed character set can turn UTF-8 or binary data into mojibake.
    private static func data(_ barcode: OpaquePointer) -> [UInt8] {
        let contentType = ZXing_Barcode_contentType(barcode)
        if ZXing_Barcode_hasECI(barcode), contentType != ZXing_ContentType_Binary, contentType != ZXing_ContentType_UnknownECI {
            return Array(string(ZXing_Barcode_text(barcode)).utf8)
        }
        var length: Int32 = 0
        guard let bytes = ZXing_Barcode_bytes(barcode, &length) else { return [] }
        defer { ZXing_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    /// UPC-A and UPC-E as ZBar gives them and as they are printed, 12 and 8 digits; EAN-13 and
    /// EAN-8 are 13 and 8 digits from both. zxing-cpp 3 gives UPC-A and UPC-E as the 13-digit
    /// content ISO/IEC 15420 names for ]E0 (UPC-E expanded), and the UPC-E as printed beside it.
    private static func retailText(_ symbology: Symbology, _ bytes: [UInt8], _ barcode: OpaquePointer) -> [UInt8] {
        switch symbology {
        case .upca where bytes.count == 13 && bytes.first == UInt8(ascii: "0"):
            return Array(bytes.dropFirst())
        case .upce:
            let printed = string(ZXing_Barcode_extra(barcode, "UPCE"))
            return printed.isEmpty ? bytes : Array(printed.utf8)
        default:
            return bytes
        }
    }

    /// A string the C API hands over, freed.
    private static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        defer { ZXing_free(pointer) }
        return String(cString: pointer)
    }

    /// AIM identifiers that mean FNC1 in first position (GS1 data).
    private static let gs1Identifiers: Set<String> = ["]d2", "]Q3", "]z1", "]C1", "]e0"]

    /// What zxing-cpp is asked for, per symbology. Its QR Code family also holds Micro QR and rMQR,
    /// symbologies of their own here: what was not asked for is dropped after reading.
    private static let formats: [Symbology: [ZXing_BarcodeFormat]] = [
        .qr: [ZXing_BarcodeFormat_QRCode],
        .microqr: [ZXing_BarcodeFormat_MicroQRCode], .rmqr: [ZXing_BarcodeFormat_RMQRCode],
        .pdf417: [ZXing_BarcodeFormat_PDF417], .datamatrix: [ZXing_BarcodeFormat_DataMatrix], .aztec: [ZXing_BarcodeFormat_Aztec],
        .ean13: [ZXing_BarcodeFormat_EAN13], .ean8: [ZXing_BarcodeFormat_EAN8], .upca: [ZXing_BarcodeFormat_UPCA],
        .upce: [ZXing_BarcodeFormat_UPCE], .itf: [ZXing_BarcodeFormat_ITF], .code39: [ZXing_BarcodeFormat_Code39],
        .code93: [ZXing_BarcodeFormat_Code93], .code128: [ZXing_BarcodeFormat_Code128], .codabar: [ZXing_BarcodeFormat_Codabar],
        .databar: [ZXing_BarcodeFormat_DataBarOmni, ZXing_BarcodeFormat_DataBarStk, ZXing_BarcodeFormat_DataBarStkOmni],
        .databarExpanded: [ZXing_BarcodeFormat_DataBarExp, ZXing_BarcodeFormat_DataBarExpStk],
        .databarLimited: [ZXing_BarcodeFormat_DataBarLtd],
    ]

    /// The symbology of a format zxing-cpp returned: one asked for, or a variant of a family asked
    /// for as a whole (Code 39 extended, ITF-14, compact PDF417, Aztec runes).
    private static func symbology(of format: ZXing_BarcodeFormat) -> Symbology? {
        if let exact = formats.first(where: { $0.value.contains(format) }) { return exact.key }
        return families[ZXing_BarcodeFormatSymbology(format).rawValue]
    }

    private static let families: [ZXing_BarcodeFormat.RawValue: Symbology] = [
        ZXing_BarcodeFormat_QRCode.rawValue: .qr,
        ZXing_BarcodeFormat_Code39.rawValue: .code39, ZXing_BarcodeFormat_ITF.rawValue: .itf,
        ZXing_BarcodeFormat_PDF417.rawValue: .pdf417, ZXing_BarcodeFormat_Aztec.rawValue: .aztec,
    ]
}
