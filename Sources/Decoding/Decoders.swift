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
            // Measured over the sample corpus: zxing-cpp's QR as a fallback reads more than either
            // library alone on every set (README, "Two decoders").
            return try RoutedDecoder(config: config, fallback: true)
        }
    }
}

/// Both libraries on one frame: ZBar for every symbology it reads, zxing-cpp for the rest.
/// With `fallback`, zxing-cpp also looks for QR in frames where ZBar found nothing.
public final class RoutedDecoder: Decoder {
    private let zbar: ZBarDecoder?
    private let zxing: ZXingDecoder?
    private let fallback: ZXingDecoder?

    public init(config: DecoderConfig, fallback: Bool = false) throws(DecoderError) {
        var zbarConfig = config, zxingConfig = config, fallbackConfig = config
        zbarConfig.symbologies = config.symbologies.intersection(ZBarDecoder.supported)
        zxingConfig.symbologies = config.symbologies.subtracting(ZBarDecoder.supported)
        fallbackConfig.symbologies = config.symbologies.intersection(ZXingDecoder.supported)
        zbar = zbarConfig.symbologies.isEmpty ? nil : try ZBarDecoder(config: zbarConfig)
        zxing = zxingConfig.symbologies.isEmpty || fallback ? nil : try ZXingDecoder(config: zxingConfig)
        self.fallback = fallback && !fallbackConfig.symbologies.isEmpty ? try ZXingDecoder(config: fallbackConfig) : nil
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        let first = try zbar?.decode(frame, in: region, secondLooks: secondLooks) ?? []
        if let fallback {
            // QR from zxing-cpp only when ZBar read nothing at all.
            let second = try fallback.decode(frame, in: region, secondLooks: secondLooks)
            return first + (first.isEmpty ? second : second.filter { DecoderEngine.zxingOnly.contains($0.symbology) })
        }
        return first + (try zxing?.decode(frame, in: region, secondLooks: secondLooks) ?? [])
    }
}
