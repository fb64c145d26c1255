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
            return try RoutedDecoder(config: config)
        }
    }
}

/// Both libraries on one frame: ZBar for every symbology it reads, zxing-cpp for the rest.
final class RoutedDecoder: Decoder {
    private let zbar: ZBarDecoder?
    private let zxing: ZXingDecoder?

    init(config: DecoderConfig) throws(DecoderError) {
        var zbarConfig = config, zxingConfig = config
        zbarConfig.symbologies = config.symbologies.intersection(ZBarDecoder.supported)
        zxingConfig.symbologies = config.symbologies.subtracting(ZBarDecoder.supported)
        zbar = zbarConfig.symbologies.isEmpty ? nil : try ZBarDecoder(config: zbarConfig)
        zxing = zxingConfig.symbologies.isEmpty ? nil : try ZXingDecoder(config: zxingConfig)
    }

    func decode(_ frame: Frame, in region: PixelRect) throws(DecoderError) -> [Symbol] {
        try (zbar?.decode(frame, in: region) ?? []) + (zxing?.decode(frame, in: region) ?? [])
    }
}
