import ScannerCore

/// Builds the decoder a config asks for.
public enum Decoders {
    /// ZBar, zxing-cpp, or both with each symbology routed to one library.
    public static func make(_ config: DecoderConfig) throws(DecoderError) -> any Decoder {
        switch config.engine {
        case .zbar:
            let refused = config.symbologies.intersection(DecoderEngine.zxingOnly)
            guard refused.isEmpty else {
                throw DecoderError("ZBar cannot read \(refused.map(\.rawValue).sorted().joined(separator: ", ")): use engine both or zxing")
            }
            return try ZBarDecoder(config: config)
        case .zxing:
            return try ZXingDecoder(config: config)
        case .both:
            // Measured over the sample corpus: zxing-cpp's QR and linear reads counting beside
            // ZBar's reads at least as many as either library alone on every set (README, "Two decoders").
            return try RoutedDecoder(config: config, fallback: true, everything: true)
        }
    }
}

/// Both libraries: ZBar for every symbology it reads, zxing-cpp for the rest. With `fallback`,
/// zxing-cpp also looks for the QR and linear codes it reads, and in a stream they count when ZBar's
/// latest look found nothing; on a still image, with `everything`, they always count, so that a
/// ZBar misread does not hide zxing-cpp's read (a code both read is reported once).
///
/// A still image gets both libraries. In a stream they take the frames in turn (`looks` is 2):
/// look 0 is ZBar, look 1 is zxing-cpp, judged by ZBar's latest look. A frame then costs one
/// library, and a code in view for two frames has been seen by both (README, "Two decoders").
public final class RoutedDecoder: Decoder {
    private let zbar: ZBarDecoder?
    private let zxing: ZXingDecoder?
    private let fallback: Bool
    private let everything: Bool
    /// Whether ZBar's latest look found anything: zxing-cpp's QR and linear codes are then not needed.
    private var zbarFound = false

    public init(config: DecoderConfig, fallback: Bool = false, everything: Bool = false) throws(DecoderError) {
        var zbarConfig = config, zxingConfig = config
        zbarConfig.symbologies = config.symbologies.intersection(ZBarDecoder.supported)
        zxingConfig.symbologies = fallback
            ? config.symbologies.intersection(ZXingDecoder.supported) : config.symbologies.subtracting(ZBarDecoder.supported)
        zbar = zbarConfig.symbologies.isEmpty ? nil : try ZBarDecoder(config: zbarConfig)
        zxing = zxingConfig.symbologies.isEmpty ? nil : try ZXingDecoder(config: zxingConfig)
        self.fallback = fallback
        self.everything = everything
    }

    public var looks: Int { zbar != nil && zxing != nil ? 2 : 1 }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        var found: [Symbol] = []
        if let zbar { found = try zbar.decode(frame, in: region, secondLooks: secondLooks) }
        zbarFound = !found.isEmpty
        guard let zxing else { return found }
        let zxingFound = try everything || !zbarFound || !fallback
            ? zxing.decode(frame, in: region, secondLooks: secondLooks)
            : zxing.decode(frame, in: region, secondLooks: secondLooks, linearCodes: false).filter { DecoderEngine.zxingOnly.contains($0.symbology) }
        // A code both libraries read is reported once, as ZBar read it.
        return found + zxingFound.filter { symbol in !found.contains { $0.symbology == symbol.symbology && $0.bytes == symbol.bytes } }
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool, look: Int) throws(DecoderError) -> [Symbol] {
        if look == 0, let zbar {
            let found = try zbar.decode(frame, in: region, secondLooks: secondLooks)
            zbarFound = !found.isEmpty
            return found
        }
        guard let zxing else { return [] }
        guard fallback && zbarFound else { return try zxing.decode(frame, in: region, secondLooks: secondLooks) }
        return try zxing.decode(frame, in: region, secondLooks: secondLooks, linearCodes: false)
            .filter { DecoderEngine.zxingOnly.contains($0.symbology) }
    }
}
