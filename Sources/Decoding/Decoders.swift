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
            // ZBar's reads at least as many as either library alone on every set (docs/configuration.md, "Two decoders").
            return try RoutedDecoder(config: config, fallback: true, everything: true)
        }
    }
}

/// Both libraries: ZBar for every symbology it reads, zxing-cpp for the rest. With `fallback`,
/// zxing-cpp also looks for the QR and linear codes it reads, and in a stream they count when ZBar's
/// latest look found nothing (`narrowed` says it found some); on a still image, with `everything`,
/// they always count, so that a ZBar misread does not hide zxing-cpp's read (a code both read is
/// reported once).
///
/// A still image gets both libraries, every pass. In a stream the passes take the frames of a new
/// or held scene in turn, so that such a frame costs at most what ZBar alone costs: ZBar,
/// zxing-cpp's first pass, and zxing-cpp's second looks. A moving scene's frames each get both
/// first passes (`.moving`). Which pass takes which frame is the read pipeline's look schedule.
public final class RoutedDecoder: Decoder {
    private let zbar: ZBarDecoder?
    private let zxing: ZXingDecoder?
    private let fallback: Bool
    private let everything: Bool
    private let deblur: Bool
    public let passes: [DecoderPass]

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
        deblur = config.preprocessing.contains(.deblur)
        passes = (zbar == nil ? [] : [.zbar]) + (zxing == nil ? [] : [.zxingFirst, .zxingSecond])
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        var found: [Symbol] = []
        if let zbar { found = try zbar.decode(frame, in: region, secondLooks: secondLooks) }
        guard let zxing else { return found }
        let zxingFound =
            try everything || found.isEmpty || !fallback
            ? zxing.decode(frame, in: region, secondLooks: secondLooks)
            : zxing.decode(frame, in: region, secondLooks: secondLooks, linearCodes: false).filter { DecoderEngine.zxingOnly.contains($0.symbology) }
        return Self.merged(found, zxingFound)
    }

    /// ZBar's codes and zxing-cpp's: a code both libraries read is reported once, as ZBar read it.
    private static func merged(_ zbarFound: [Symbol], _ zxingFound: [Symbol]) -> [Symbol] {
        zbarFound + zxingFound.filter { symbol in !zbarFound.contains { $0.symbology == symbol.symbology && $0.bytes == symbol.bytes } }
    }

    public func decode(_ frame: Frame, in region: PixelRect, pass: DecoderPass, secondLooks: Bool, narrowed: Bool) throws(DecoderError) -> [Symbol] {
        switch pass {
        case .whole:
            return try decode(frame, in: region, secondLooks: secondLooks)
        case .zbar:
            return try zbar?.decode(frame, in: region, secondLooks: secondLooks) ?? []
        case .moving:
            let found = try firstPasses(frame, in: region)
            guard found.isEmpty, deblur else { return found }
            // Nothing read through the blur: undo it, and look again.
            for blur in MotionBlur.estimate(in: frame, region: region) {
                let sharp = blur.deblurred(frame, region: region)
                let read = try firstPasses(sharp, in: PixelRect(x: 0, y: 0, width: sharp.width, height: sharp.height))
                guard read.isEmpty else {
                    return read.map { symbol in
                        var moved = symbol
                        moved.corners = Corners(symbol.corners.points.map { Point(x: $0.x + region.x, y: $0.y + region.y) })
                        return moved
                    }
                }
            }
            return []
        case .zxingFirst, .zxingSecond:
            return try zxingLook(frame, in: region, pass: pass == .zxingFirst ? .first : .second, narrowed: narrowed)
        }
    }

    /// ZBar's first pass, then zxing-cpp's, looking only for what ZBar cannot read when ZBar found codes.
    private func firstPasses(_ frame: Frame, in region: PixelRect) throws(DecoderError) -> [Symbol] {
        let found = try zbar?.decode(frame, in: region, secondLooks: false) ?? []
        return Self.merged(found, try zxingLook(frame, in: region, pass: .first, narrowed: !found.isEmpty))
    }

    /// zxing-cpp's `pass`; `narrowed`: ZBar found codes, so only what ZBar cannot read is looked for.
    private func zxingLook(_ frame: Frame, in region: PixelRect, pass zxingPass: ZXingDecoder.Pass, narrowed: Bool) throws(DecoderError) -> [Symbol] {
        guard let zxing else { return [] }
        // zxing-cpp's QR and linear codes are looked for only when ZBar's latest look found nothing.
        guard fallback && narrowed else { return try zxing.decode(frame, in: region, pass: zxingPass, linearCodes: true) }
        return try zxing.decode(frame, in: region, pass: zxingPass, linearCodes: false).filter { DecoderEngine.zxingOnly.contains($0.symbology) }
    }
}
