import Codes
import Imaging

#if canImport(Glibc)
    import Glibc
#endif

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
    /// ZBar for the linear codes, every 4th line: the moving scene's look at the whole frame for a
    /// code that reaches beyond the viewport (a long code's bars are tall enough for that).
    private let wideZBar: ZBarDecoder?
    private let zxing: ZXingDecoder?
    /// ZBar for the linear codes along the rows only, and down the columns only: a frame deblurred
    /// along them (`alongBlur`).
    private let alongRows: ZBarDecoder?
    private let alongColumns: ZBarDecoder?
    private let fallback: Bool
    private let everything: Bool
    private let deblur: Bool
    private let turned: Bool
    private let upscaled: Bool
    private let sharpened: Bool
    /// The moving look's deblurring, with decoders of its own, for a second core to run while this
    /// one runs the looks before it (`Deblurring`); nil on a one-core machine, where it runs in turn.
    private let beside: Deblurring.Decoder?
    public let passes: [DecoderPass]

    /// `beside`: whether the deblurring may run on another core (its own decoder builds with false).
    public init(config: DecoderConfig, fallback: Bool = false, everything: Bool = false, beside: Bool = true) throws(DecoderError) {
        var zbarConfig = config
        var zxingConfig = config
        zbarConfig.symbologies = config.symbologies.intersection(ZBarDecoder.supported)
        zxingConfig.symbologies =
            fallback
            ? config.symbologies.intersection(ZXingDecoder.supported) : config.symbologies.subtracting(ZBarDecoder.supported)
        zbar = zbarConfig.symbologies.isEmpty ? nil : try ZBarDecoder(config: zbarConfig)
        wideZBar = try Self.wholeFrameLook(config)
        zxing = zxingConfig.symbologies.isEmpty ? nil : try ZXingDecoder(config: zxingConfig)
        alongRows = try Self.linearLook(config, lines: .rows)
        alongColumns = try Self.linearLook(config, lines: .columns)
        self.fallback = fallback
        self.everything = everything
        deblur = config.preprocessing.contains(.deblur)
        turned = config.preprocessing.contains(.turned)
        upscaled = config.preprocessing.contains(.upscaled)
        sharpened = config.preprocessing.contains(.sharpened)
        passes = (zbar == nil ? [] : [.zbar]) + (zxing == nil ? [] : [.zxingFirst, .zxingSecond])
        self.beside =
            beside && deblur && Self.cores > 1
            ? Deblurring.Decoder(try RoutedDecoder(config: config, fallback: fallback, everything: everything, beside: false)) : nil
    }

    /// The processors online.
    static let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    /// The moving scene's look at the whole frame for `config`: ZBar for its linear codes, without
    /// preprocessing, on every 4th line; nil when ZBar reads none of them.
    public static func wholeFrameLook(_ config: DecoderConfig) throws(DecoderError) -> ZBarDecoder? {
        try linearLook(config, lineSpacing: 4)
    }

    /// ZBar for `config`'s linear codes, without preprocessing, on every `lineSpacing`th of the
    /// `lines`; nil when ZBar reads none of them.
    private static func linearLook(_ config: DecoderConfig, lineSpacing: Int = 1, lines: ZBarDecoder.Lines = .both) throws(DecoderError) -> ZBarDecoder? {
        var linear = config
        linear.symbologies = config.symbologies.intersection(ZBarDecoder.supported).subtracting([.qr])
        linear.preprocessing = []
        return linear.symbologies.isEmpty ? nil : try ZBarDecoder(config: linear, lineSpacing: lineSpacing, lines: lines)
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        let read = try everyPass(frame, in: region, secondLooks: secondLooks)
        // A UPC-E or EAN-8 with bars in its quiet zone may be part of a longer code (`QuietZone`):
        // ZBar read the middle of a UPC-A as a UPC-E on two photos of the corpus, which the closer
        // looks read right. They look where every read is such a code.
        let fragments = read.filter { QuietZone.hasBars($0, in: frame) }
        let codes = read.filter { !QuietZone.hasBars($0, in: frame) }
        let closer = codes.isEmpty && secondLooks ? try closerLooks(frame, in: region) : []
        return Self.givingWay(fragments, to: codes + closer)
    }

    /// `codes`, then each of `fragments` (short codes with bars in their quiet zones) that none of
    /// them overlaps: a code read over one is what it was part of, and one with nothing read over
    /// it stands, since a still image keeps what the libraries read (a real UPC-E of the corpus,
    /// read on a few lines from one side, has the narrow box `QuietZone` takes for a fragment's).
    static func givingWay(_ fragments: [Symbol], to codes: [Symbol]) -> [Symbol] {
        codes + fragments.filter { fragment in !codes.contains { $0.corners.bounds.overlaps(fragment.corners.bounds) } }
    }

    /// Both libraries, every pass, on one frame.
    private func everyPass(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        var found: [Symbol] = []
        if let zbar { found = try zbar.decode(frame, in: region, secondLooks: secondLooks) }
        guard let zxing else { return found }
        let zxingFound =
            try everything || found.isEmpty || !fallback
            ? zxing.decode(frame, in: region, secondLooks: secondLooks)
            : zxing.decode(frame, in: region, secondLooks: secondLooks, linearCodes: false).filter { DecoderEngine.zxingOnly.contains($0.symbology) }
        return Self.merged(found, zxingFound)
    }

    /// A still image's last looks, where every other found nothing, each on what the one before
    /// left: zxing-cpp on the region scaled up (`upscaled`), both libraries on the region sharpened
    /// (`sharpened`), and with both, zxing-cpp on the scaled-up region sharpened. On the sample
    /// corpus they read small and defocused EAN, UPC, DataBar and Data Matrix codes that neither
    /// library reads as they are (docs/configuration.md, "Second looks"). ZBar does not get the
    /// scaled-up image: there it read EAN-13s and UPC-Es that were not there, with a check digit
    /// that holds. The least altered image goes first: zxing-cpp read a defocused UPC-E of the
    /// corpus right when sharpened, and three ways, two of them wrong, when also scaled up.
    private func closerLooks(_ frame: Frame, in region: PixelRect) throws(DecoderError) -> [Symbol] {
        var closer: Frame?
        if upscaled, let zxing, region.width * region.height <= Self.largestUpscaled {
            let scaled = frame.scaledUp(region)
            let read = Self.uncontradicted(try zxing.decode(scaled, in: scaled.whole, pass: .second, linearCodes: true))
            guard read.isEmpty else { return Self.placed(read, in: region, scale: 2) }
            closer = scaled
        }
        guard sharpened else { return [] }
        let sharp = frame.sharpened(region)
        let found = try checked(zbar?.decode(sharp, in: sharp.whole, secondLooks: false) ?? [], sharp, in: sharp.whole)
        let read = Self.merged(found, try zxing?.decode(sharp, in: sharp.whole, pass: .second, linearCodes: true) ?? [])
        guard read.isEmpty, let closer, let zxing else { return Self.placed(read, in: region, scale: 1) }
        // A small code out of focus: its edges steepened at the scaled-up size (σ about 1.2 px of the frame's).
        let sharpCloser = closer.sharpened(closer.whole, radius: 2, amount: 2)
        let readCloser = Self.uncontradicted(try zxing.decode(sharpCloser, in: sharpCloser.whole, pass: .second, linearCodes: true))
        return Self.placed(readCloser, in: region, scale: 2)
    }

    /// The most pixels a region scaled up may have: 640×480, the daemon's default frame (a 1280×720
    /// camera's default viewport is smaller), so that the look costs at most four of them. A whole
    /// 1280×720 image scaled up cost 0.8 s more per empty, noisy still image (`scan`, 2.1 s
    /// without it) for codes whose modules are 1 to 2.5 px in a frame that wide.
    static let largestUpscaled = 640 * 480

    /// `read` less each linear code that another linear code of other digits or text overlaps
    /// (`misreadsInPlace`: not 2D codes, nor an EAN add-on beside its EAN), or lies alongside on
    /// other lines across the same bars (`liesAlongside`: EAN-13 and UPC-A): a look that read one
    /// code two ways through steepened or interpolated edges, or through smeared ones, has read
    /// neither for sure, and the next look may read it one way. Less also each code found on one
    /// line or few (`isSparse`) that another read varies (`isVariant`), wherever it lies: ZBar's
    /// point for a code read on one line marks one of its ends, and the turned look read a Code 128
    /// of 1.8 px modules swiped past at 45° as `55Z66E6OU5W` on one line and as `5&Z6(E6(U5W` on
    /// another, its points 275 px apart at the code's two ends (the motion benchmark; zxing-cpp,
    /// which confirms a moving frame's sparse reads, does not read a code turned that far).
    static func uncontradicted(_ read: [Symbol]) -> [Symbol] {
        read.filter { symbol in
            guard symbol.misreadsInPlace else { return true }
            let sparse = isSparse(symbol)
            return !read.contains { other in
                other.misreadsInPlace && (other.gtin13 ?? other.bytes) != (symbol.gtin13 ?? symbol.bytes)
                    && (other.sharesPlace(with: symbol) || other.liesAlongside(symbol) || (sparse && isVariant(other, of: symbol)))
            }
        }
    }

    /// What stands of a moving frame's look: the reads neither `uncontradicted` (which `decode`
    /// applies to whatever look read) nor the viewport (`Decoder.symbols` drops a code centred
    /// outside it) takes away. A look that read only such codes read nothing, and the next look
    /// runs: zxing-cpp along the columns read a UPC-A standing on end two ways on one frame of the
    /// motion benchmark, which left that frame's turned look and deblurring undone.
    static func standing(_ read: [Symbol], in region: PixelRect) -> [Symbol] {
        uncontradicted(read).filter { region.contains($0.corners.centre) }
    }

    /// Whether `other` is `symbol` with a few characters read otherwise: one symbology, as many
    /// characters, at most a third of them different. Two of ZBar's wrong Code 128 characters can
    /// cancel in its mod-103 check, and both misreads of the motion benchmark had 2 or 3.
    static func isVariant(_ other: Symbol, of symbol: Symbol) -> Bool {
        guard other.symbology == symbol.symbology, other.bytes.count == symbol.bytes.count, other.bytes != symbol.bytes else { return false }
        return zip(other.bytes, symbol.bytes).filter { $0 != $1 }.count * 3 <= symbol.bytes.count
    }

    /// Symbols read on an image of `region` `scale` times its size, with their corners in the frame.
    private static func placed(_ symbols: [Symbol], in region: PixelRect, scale: Int) -> [Symbol] {
        symbols.map { symbol in
            var placed = symbol
            placed.corners = Corners(symbol.corners.points.map { Point(x: $0.x / scale + region.x, y: $0.y / scale + region.y) })
            return placed
        }
    }

    /// ZBar's codes and zxing-cpp's: a code both libraries read is reported once, as ZBar read it,
    /// and a linear code they read two ways in one place by neither (`uncontradicted`): one of the
    /// two is wrong, and the next frame or a closer look decides. ZBar read a Code 128 of 1.8 px
    /// modules as `(UUWE&B5MGP` where zxing-cpp read its `OUUWESB5MGP`, and a still image gave both.
    static func merged(_ zbarFound: [Symbol], _ zxingFound: [Symbol]) -> [Symbol] {
        uncontradicted(zbarFound + zxingFound.filter { symbol in !zbarFound.contains { $0.symbology == symbol.symbology && $0.bytes == symbol.bytes } })
    }

    /// Whatever look reads it, a frame gives no linear code read two ways (`uncontradicted`): zxing-cpp
    /// along the columns read a UPC-A standing on end two ways on one frame of the motion benchmark.
    public func decode(
        _ frame: Frame, in region: PixelRect, pass: DecoderPass, secondLooks: Bool, narrowed: Bool, travel: MotionBlur.Travel?
    ) throws(DecoderError) -> [Symbol] {
        Self.uncontradicted(try look(frame, in: region, pass: pass, secondLooks: secondLooks, narrowed: narrowed, travel: travel))
    }

    private func look(
        _ frame: Frame, in region: PixelRect, pass: DecoderPass, secondLooks: Bool, narrowed: Bool, travel: MotionBlur.Travel?
    ) throws(DecoderError) -> [Symbol] {
        switch pass {
        case .still:
            return try decode(frame, in: region, secondLooks: secondLooks)
        case .whole:
            // A trigger session's first frame: the closer looks would hold the next frames back
            // (about 0.2 s on an empty 640×480 frame here) while the code is still on its way.
            return try everyPass(frame, in: region, secondLooks: secondLooks)
        case .zbar:
            // A still scene's frames in a stream get no turned look: it would run where nothing
            // changes, on the gate's safety-net decodes (idle CPU 0.34 s/min instead of 0.22 in
            // daemon-bench), and a code put down moved into view, which the moving pass looked at.
            return try checked(zbar?.decode(frame, in: region, secondLooks: secondLooks, turning: false) ?? [], frame, in: region)
        case .moving:
            // Each look's reads are judged by what stands of them (`standing`); when nothing does,
            // the next look still runs.
            let found = Self.standing(try firstPasses(frame, in: region), in: region)
            guard found.isEmpty else { return found }
            // The last look, the deblurring, starts now beside the looks below, on another core: a
            // moving frame that reads nothing took 45 to 100 ms in turn, over a 30 fps frame's 33,
            // and the camera dropped the frames meanwhile. Their reads come first, as in turn.
            let deblurring = deblur ? Deblurring(frame, in: region, travel: travel, beside: beside) : nil
            defer { deblurring?.cancel() }
            // A linear code can reach beyond the viewport while its centre is inside it: ZBar on the
            // whole frame, every 4th line, for the linear codes centred in the viewport.
            let whole = frame.whole
            if let wideZBar, region != whole {
                let wide = try wideZBar.decode(frame, in: whole, secondLooks: false).filter { region.contains($0.corners.centre) }
                let kept = Self.standing(try checked(wide, frame, in: whole, confirmed: true), in: region)
                guard kept.isEmpty else { return kept }
            }
            // A linear code turned about 90° that only zxing-cpp reads (ZBar read none of a small
            // EAN-13's frames standing on end, in the motion benchmark): zxing-cpp along the columns.
            // On the whole frame, for the linear codes centred in the viewport: the motion
            // benchmark's Code 128 of 2.3 px modules, 383 px wide against the viewport's 360, swiped
            // upright at 1 viewport width a second, was read by zxing-cpp on every frame and by ZBar
            // on none (its whole-frame look above samples every 4th line). The whole frame, not the
            // viewport's rows: a code reaching into them from above is found on its rows inside.
            if let zxing {
                let columns = try zxing.decode(frame, in: whole, pass: .columns, linearCodes: true).filter { region.contains($0.corners.centre) }
                let read = Self.standing(columns, in: region)
                guard read.isEmpty else { return read }
            }
            // A linear code slanted 30 to 60°, which no row or column crosses whole: ZBar on the viewport turned 45°.
            if turned, let zbar {
                // The turned look checked its small EANs' profiles already.
                let slanted = Self.standing(try checked(zbar.turnedLook(frame, in: region), frame, in: region, profiled: true), in: region)
                guard slanted.isEmpty else { return slanted }
            }
            return try deblurring?.reads(inTurnBy: self) ?? []
        case .zxingFirst, .zxingSecond:
            return try zxingLook(frame, in: region, pass: pass == .zxingFirst ? .first : .second, narrowed: narrowed)
        }
    }

    /// Nothing read through the blur: undo it, and look again (`MotionBlur.undoable`); nothing
    /// once `cancelled`, which is asked before each blur and each look.
    func deblurredLook(_ frame: Frame, in region: PixelRect, travel: MotionBlur.Travel?, cancelled: () -> Bool) throws(DecoderError) -> [Symbol] {
        for blur in MotionBlur.undoable(in: frame, region: region, travel: travel) {
            guard !cancelled() else { return [] }
            let sharp = blur.deblurred(frame, region: region)
            guard !cancelled() else { return [] }
            let read = Self.standing(
                Self.placed(try firstPasses(sharp, in: sharp.whole, confirmed: true, zbar: alongBlur(blur)), in: region, scale: 1), in: region)
            guard read.isEmpty else { return read }
        }
        return []
    }

    /// ZBar's first pass (`zbar`'s, when given), then zxing-cpp's, looking only for what ZBar cannot
    /// read when ZBar found codes; `confirmed`: as `checked` takes it.
    private func firstPasses(_ frame: Frame, in region: PixelRect, confirmed: Bool = false, zbar: ZBarDecoder? = nil) throws(DecoderError) -> [Symbol] {
        let zbar = zbar ?? self.zbar
        let found = try checked(zbar?.decode(frame, in: region, secondLooks: false) ?? [], frame, in: region, confirmed: confirmed, moving: true)
        return Self.merged(found, try zxingLook(frame, in: region, pass: .first, narrowed: !found.isEmpty))
    }

    /// ZBar for a frame deblurred along `blur`: along the rows or down the columns only when the
    /// blur was, for the linear codes, and both ways after a diagonal one. The deblurring sharpens
    /// a frame along the motion only, so a linear code it brought out has its bars across the
    /// motion, where the lines along it cross them; ZBar finds a QR code on lines both ways, and
    /// zxing-cpp looks for it there too. Along one axis ZBar took 12 ms of a deblurred viewport
    /// instead of 23, and in the motion benchmark's passes replayed (`decode-bench stream`, 13
    /// groups of 20 at 0.25 to 3 viewport widths a second) no ZBar at all on such frames read the
    /// same passes at load 0.
    private func alongBlur(_ blur: MotionBlur) -> ZBarDecoder? {
        switch blur.direction {
        case .across: alongRows
        case .down: alongColumns
        case .falling, .rising: zbar
        }
    }

    /// ZBar's reads of a stream frame, less the EAN-13 and UPC-A codes too small to trust that
    /// zxing-cpp reads otherwise, or that ZBar read on few lines and zxing-cpp does not confirm.
    ///
    /// At under 3 px a module ZBar can read a turned or smeared EAN-13 wrong on several scan lines
    /// with a check digit that holds: in the motion benchmark, `6809742914682` on 9 lines of a frame
    /// where zxing-cpp read the code's `5809549974682`. Such a read is checked by zxing-cpp's first
    /// pass on the same frame: where zxing-cpp reads another EAN-13 or UPC-A over it, neither is kept
    /// and the next frame decides; where zxing-cpp reads the same, ZBar's read stands, and where
    /// zxing-cpp reads nothing there, it stands unless ZBar found it on few of its lines
    /// (`isFewLines`) or its bar profile does not read the same (`ZBarDecoder.profileAgrees`, as
    /// the turned look checks its reads): ZBar read a UPC-A turned 72° and swiped diagonally, its
    /// `730909225678`, as the EAN-13 `7740208225678` on 11 of the pass's frames (4 to 7 columns
    /// each), zxing-cpp nothing there, and that false read went out in 4 of 9 runs of that pass.
    /// Codes at larger modules, and frames without such a read, cost nothing more.
    ///
    /// `confirmed`: a moving frame's second looks (the whole frame, the deblurred viewport) found the
    /// codes, after the first passes found nothing. A small EAN-13 there is one cut by the viewport's
    /// edge or one the deblurring sharpened, and ZBar read one such wrong on 12 frames (UPC-A
    /// `852323109911` turned 342° as the EAN-13 `6811423109911`, in the motion benchmark): it stands
    /// only when zxing-cpp read the same there. So does any code found there on one scan line
    /// (`Symbol.isOneLine`). `profiled`: the looks that found them checked their profiles already.
    /// `moving`: a moving frame's first passes, where a linear code ZBar found on few lines
    /// (`isSparse`) stands only when zxing-cpp read the same there; with `confirmed`, no linear
    /// code stands over which zxing-cpp read another of its symbology.
    private func checked(
        _ found: [Symbol], _ frame: Frame, in region: PixelRect, confirmed: Bool = false, profiled: Bool = false, moving: Bool = false
    ) throws(DecoderError) -> [Symbol] {
        let moving = moving || confirmed
        guard let zxing,
            found.contains(where: { Self.isSmallEAN($0) || (confirmed && $0.misreadsInPlace) || (moving && Self.isSparse($0)) })
        else { return found }
        let zxingFound = try zxing.decode(frame, in: region, pass: .first, linearCodes: true)
        var kept: [Symbol] = []
        for symbol in Self.agreed(found, zxingFound, confirmed: confirmed, moving: moving) {
            // Standing without zxing-cpp's word: its profile must read the same.
            if !profiled, Self.isSmallEAN(symbol), let zbar, !zxingFound.contains(where: { $0.sharesPlace(with: symbol) }) {
                guard try zbar.profileAgrees(with: symbol, in: frame) else { continue }
            }
            kept.append(symbol)
        }
        return kept
    }

    /// Whether `symbol` is an EAN-13 or UPC-A (95 modules across) drawn at under 3 px a module.
    static func isSmallEAN(_ symbol: Symbol) -> Bool {
        guard eanFamily.contains(symbol.symbology) else { return false }
        return extents(symbol).across < 3 * 95
    }

    /// A linear symbol's extent across its bars (its reading direction) and along them: its box's,
    /// or for a slanted one (the turned look's) its corners' sides, which start at its own top-left.
    private static func extents(_ symbol: Symbol) -> (across: Int, along: Int) {
        let points = symbol.corners.points
        if points[0].x != points[1].x && points[0].y != points[1].y {
            func length(_ a: Point, _ b: Point) -> Int { Int(Double((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot().rounded()) }
            return (length(points[0], points[1]), length(points[1], points[2]))
        }
        let box = symbol.corners.bounds
        switch symbol.orientation {
        case .up, .down: return (box.width, box.height)
        case .left, .right: return (box.height, box.width)
        case .unknown: return (max(box.width, box.height), min(box.width, box.height))
        }
    }

    /// Whether ZBar found `symbol` on fewer than 0.15 of the scan lines its box spans along its bars.
    /// A code read right is found on most of them; an EAN-13 cut by the viewport's edge as it came in
    /// was read wrong on 5 of 45 (the motion benchmark: 4 of its 8 wrong small-EAN reads, and 19 of
    /// its 5283 right ones, were under 0.15).
    static func isFewLines(_ symbol: Symbol) -> Bool {
        Double(symbol.quality) < 0.15 * Double(extents(symbol).along)
    }

    /// ZBar's reads less each small EAN-13 or UPC-A over which zxing-cpp read another code of the
    /// two, and each one found on few lines (any one, when `confirmed`) that zxing-cpp did not read
    /// the same; when `confirmed`, also less each code found on one line that zxing-cpp did not read
    /// the same; when `moving`, less each other linear code found on one line or few (`isSparse`)
    /// that zxing-cpp did not read the same; and when `confirmed`, less each linear code over which
    /// zxing-cpp read another code of its symbology (the whole-frame look's Code 128 `(UUWE&B5MGP`
    /// on 2 of the 7 lines it scanned across the code, where zxing-cpp read `OUUWESB5MGP`).
    static func agreed(_ zbarFound: [Symbol], _ zxingFound: [Symbol], confirmed: Bool = false, moving: Bool = false) -> [Symbol] {
        return zbarFound.filter { symbol in
            if confirmed && symbol.misreadsInPlace
                && zxingFound.contains(where: { $0.symbology == symbol.symbology && $0.bytes != symbol.bytes && $0.sharesPlace(with: symbol) })
            {
                return false
            }
            if (confirmed && symbol.isOneLine && !isSmallEAN(symbol)) || (moving && isSparse(symbol)) {
                return zxingFound.contains { $0.symbology == symbol.symbology && $0.bytes == symbol.bytes && $0.sharesPlace(with: symbol) }
            }
            guard isSmallEAN(symbol) else { return true }
            let there = zxingFound.filter { eanFamily.contains($0.symbology) && $0.sharesPlace(with: symbol) }
            guard there.allSatisfy({ $0.gtin13 == symbol.gtin13 }) else { return false }
            return !there.isEmpty || !(confirmed || isFewLines(symbol))
        }
    }

    /// Whether `symbol` is a linear code other than a small EAN-13 or UPC-A that ZBar found on one
    /// line or on few of the lines its box spans. ZBar read a Code 128 of 1.8 px modules swiped
    /// past (`OUUWESB5MGP`) as `(UUWE&B5MGP` on every frame of its pass, on 1 to 7 lines of the 30
    /// to 90 its box spanned: two characters wrong whose weights cancel in the mod-103 check.
    /// zxing-cpp read it right on each frame, but did not look while ZBar had found a code.
    static func isSparse(_ symbol: Symbol) -> Bool {
        symbol.misreadsInPlace && !isSmallEAN(symbol) && (symbol.isOneLine || isFewLines(symbol))
    }

    /// The symbologies of 95-module codes whose digits are a GTIN-13 (UPC-A with a leading 0).
    private static let eanFamily: Set<Symbology> = [.ean13, .upca, .isbn13]

    /// zxing-cpp's `pass`; `narrowed`: ZBar found codes, so only what ZBar cannot read is looked for.
    private func zxingLook(_ frame: Frame, in region: PixelRect, pass zxingPass: ZXingDecoder.Pass, narrowed: Bool) throws(DecoderError) -> [Symbol] {
        guard let zxing else { return [] }
        // zxing-cpp's QR and linear codes are looked for only when ZBar's latest look found nothing.
        guard fallback && narrowed else { return try zxing.decode(frame, in: region, pass: zxingPass, linearCodes: true) }
        return try zxing.decode(frame, in: region, pass: zxingPass, linearCodes: false).filter { DecoderEngine.zxingOnly.contains($0.symbology) }
    }
}
