import Codes
import Imaging

/// Builds the decoder a config asks for.
public enum Decoders {
    /// ZBar, zxing-cpp, or both with each symbology routed to one library.
    public static func make(_ config: DecoderConfig) throws(DecoderError) -> any Decoder {
        switch config.engine {
        case .zbar:
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
/// A still image gets both libraries, every pass. In a stream the looks take the frames in turn,
/// so that a frame costs at most what ZBar alone costs: look 0 is ZBar (its second looks on a frame
/// where it found nothing), look 1 zxing-cpp's first pass, and look 2 zxing-cpp's second looks
/// (tryRotate, tryInvert, the global-histogram binarizer), only when neither earlier look found
/// anything (README, "Two decoders").
public final class RoutedDecoder: Decoder {
    private let zbar: ZBarDecoder?
    private let zxing: ZXingDecoder?
    private let fallback: Bool
    private let everything: Bool
    /// Whether ZBar's latest look found anything: zxing-cpp's QR and linear codes are then not needed.
    private var zbarFound = false
    /// Whether any look at the current scene found anything: zxing-cpp's second looks are then not needed.
    private var sceneFound = false

    /// What one look of a stream does.
    private enum Look {
        case zbar, zxingFirst, zxingSecond
    }

    private let streamLooks: [Look]

    public init(config: DecoderConfig, fallback: Bool = false, everything: Bool = false) throws(DecoderError) {
        var zbarConfig = config
        var zxingConfig = config
        zbarConfig.symbologies = config.symbologies.intersection(ZBarDecoder.supported)
        zxingConfig.symbologies =
            fallback
            ? config.symbologies.intersection(ZXingDecoder.supported) : config.symbologies.subtracting(ZBarDecoder.supported)
        zbar = zbarConfig.symbologies.isEmpty ? nil : try ZBarDecoder(config: zbarConfig)
        zxing = zxingConfig.symbologies.isEmpty ? nil : try ZXingDecoder(config: zxingConfig)
        self.fallback = fallback
        self.everything = everything
        streamLooks = (zbar == nil ? [] : [.zbar]) + (zxing == nil ? [] : [.zxingFirst, .zxingSecond])
    }

    public var looks: Int { streamLooks.count }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        var found: [Symbol] = []
        if let zbar { found = try zbar.decode(frame, in: region, secondLooks: secondLooks) }
        zbarFound = !found.isEmpty
        guard let zxing else { return found }
        let zxingFound =
            try everything || !zbarFound || !fallback
            ? zxing.decode(frame, in: region, secondLooks: secondLooks)
            : zxing.decode(frame, in: region, secondLooks: secondLooks, linearCodes: false).filter { DecoderEngine.zxingOnly.contains($0.symbology) }
        // A code both libraries read is reported once, as ZBar read it.
        return found + zxingFound.filter { symbol in !found.contains { $0.symbology == symbol.symbology && $0.bytes == symbol.bytes } }
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool, look: Int, changed: Bool) throws(DecoderError) -> [Symbol] {
        guard !streamLooks.isEmpty else { return [] }
        var step = streamLooks[look % streamLooks.count]
        if changed && step != .zbar {
            // A frame the earlier looks did not see is a new scene to zxing-cpp: its first pass, every
            // symbology. A scene that keeps changing is then read by ZBar and zxing-cpp in turn, and
            // its second looks wait until it holds still.
            (zbarFound, sceneFound, step) = (false, false, .zxingFirst)
        }
        switch step {
        case .zbar:
            let found = try zbar!.decode(frame, in: region, secondLooks: secondLooks)
            zbarFound = !found.isEmpty
            sceneFound = zbarFound
            return found
        case .zxingFirst:
            if zbar == nil { sceneFound = false }
            let found = try zxingLook(frame, in: region, pass: .first)
            sceneFound = sceneFound || !found.isEmpty
            return found
        case .zxingSecond:
            guard secondLooks, !sceneFound else { return [] }
            return try zxingLook(frame, in: region, pass: .second)
        }
    }

    /// zxing-cpp's QR and linear codes are looked for only when ZBar's latest look found nothing.
    private func zxingLook(_ frame: Frame, in region: PixelRect, pass: ZXingDecoder.Pass) throws(DecoderError) -> [Symbol] {
        guard fallback && zbarFound else { return try zxing!.decode(frame, in: region, pass: pass, linearCodes: true) }
        return try zxing!.decode(frame, in: region, pass: pass, linearCodes: false).filter { DecoderEngine.zxingOnly.contains($0.symbology) }
    }
}
