import CZBar
import Codes
import Imaging

/// Decodes 1D codes and QR with libzbar, reading the frame's luma plane in place.
///
/// Each image is scanned by a new libzbar scanner (11 µs to make, against milliseconds for a scan).
/// A scanner keeps what its EAN decoder read of each half of a code from one image to the next, and
/// joins a half read later to it: after a frame with a code, a frame showing only that code's right
/// half, or the right half of another item's code that shares it, reads the first code (in the
/// motion benchmark, a UPC-A's right half read with the left half of the frame before). And
/// libzbar 0.23.92 never reuses a QR symbol: its QR decoder asks for a symbol of length 0 and grows
/// the data afterwards, so the freed symbol lands in a recycle bucket that only longer symbols draw
/// from, and each QR found stays allocated until the scanner is destroyed (mchehab/zbar#258,
/// "FIXME cap bucket fill"), which for a daemon reading QR codes for years is unbounded growth.
public final class ZBarDecoder: Decoder {
    private var scanner: OpaquePointer
    private var image: OpaquePointer
    private let symbologies: Set<Symbology>
    private let lengths: [Symbology: LengthLimit]
    private let inverted: Bool
    private let secondScale: Bool
    private let turned: Bool
    /// ZBar scans every `lineSpacing`th row and column.
    private let lineSpacing: Int32
    /// Whether ZBar scans the rows, the columns, or both.
    private let lines: Lines
    /// Whether ZBar's own inverted rescan is switched on now.
    private var invertedOn = false
    /// The half-size copy of the viewport for the second-scale pass, reused from frame to frame.
    private var half: [UInt8] = []
    /// The viewport turned 45° for the turned pass, reused from frame to frame.
    private var turnedPixels: [UInt8] = []
    /// The current scanner has scanned an image: the next is scanned by a new one.
    private var scanned = false

    /// The symbologies libzbar can read.
    public static let supported: Set<Symbology> = Set(symbolTypes.keys)

    /// A decoder for the enabled symbologies and their length limits, scanning every
    /// `lineSpacing`th row and column (ZBar's density: 1, every one, is its default), or only
    /// the rows or the columns (`lines`).
    public init(config: DecoderConfig, lineSpacing: Int = 1, lines: Lines = .both) throws(DecoderError) {
        if let refusal = DecoderEngine.zbar.refusal(for: config.symbologies) { throw DecoderError(refusal) }
        symbologies = config.symbologies
        lengths = config.lengths
        self.lineSpacing = Int32(lineSpacing)
        self.lines = lines
        (scanner, image) = try Self.makeScanner(symbologies: symbologies, lengths: lengths, lineSpacing: self.lineSpacing, lines: lines)
        inverted = config.preprocessing.contains(.inverted)
        secondScale = config.preprocessing.contains(.secondScale)
        turned = config.preprocessing.contains(.turned)
    }

    deinit {
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    /// The lines of a frame ZBar scans: its rows, its columns, or both.
    public enum Lines: Sendable {
        case rows, columns, both
    }

    private static func makeScanner(
        symbologies: Set<Symbology>, lengths: [Symbology: LengthLimit], lineSpacing: Int32, lines: Lines
    ) throws(DecoderError) -> (OpaquePointer, OpaquePointer) {
        guard let scanner = zbar_image_scanner_create() else { throw DecoderError("libzbar could not allocate a scanner") }
        guard let image = zbar_image_create() else {
            zbar_image_scanner_destroy(scanner)
            throw DecoderError("libzbar could not allocate an image")
        }
        zbar_image_set_format(image, Self.y800)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        // ZBar decodes UPC-A and ISBN through its EAN-13 decoder, which must be on for them: an EAN-13
        // read that was not asked for is left out in `scan`.
        if !symbologies.isDisjoint(with: [.upca, .isbn10, .isbn13]) { zbar_image_scanner_set_config(scanner, ZBAR_EAN13, ZBAR_CFG_ENABLE, 1) }
        for symbology in symbologies {
            let type = Self.symbolTypes[symbology]!
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
            if let limit = lengths[symbology] {
                if let min = limit.min { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_MIN_LEN, Int32(min)) }
                if let max = limit.max { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_MAX_LEN, Int32(max)) }
            }
        }
        // ZBar's X density spaces the columns it scans, its Y density the rows; 0 scans none.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, lines == .rows ? 0 : lineSpacing)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, lines == .columns ? 0 : lineSpacing)
        // Binary mode keeps QR bytes as they are: ZBar's charset guessing would re-encode them.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        return (scanner, image)
    }

    /// A fresh scanner and image with the same settings, the inverted rescan as it is; the old
    /// ones, and every symbol libzbar kept for them, are freed. Keeps the old pair if a new one
    /// cannot be made.
    private func renew() {
        guard let (newScanner, newImage) = try? Self.makeScanner(symbologies: symbologies, lengths: lengths, lineSpacing: lineSpacing, lines: lines) else {
            return
        }
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
        (scanner, image) = (newScanner, newImage)
        if invertedOn { zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_TEST_INVERTED, 1) }
        scanned = false
    }

    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool) throws(DecoderError) -> [Symbol] {
        try decode(frame, in: region, secondLooks: secondLooks, turning: turned)
    }

    /// `turning`: the turned look is one of the second looks (when `preprocessing` has it). A
    /// stream's still scene leaves it out: see RoutedDecoder.
    public func decode(_ frame: Frame, in region: PixelRect, secondLooks: Bool, turning: Bool) throws(DecoderError) -> [Symbol] {
        // ZBar inverts and rescans by itself when a pass found nothing.
        if invertedOn != (inverted && secondLooks) {
            invertedOn.toggle()
            zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_TEST_INVERTED, invertedOn ? 1 : 0)
        }
        // ZBar has no stride: it sees rows `stride` wide and is cropped to the real pixels.
        let found = try scan(
            frame.storage.base, count: min(frame.storage.count, frame.stride * frame.height),
            width: frame.stride, height: frame.height, crop: region, sequence: frame.sequence)
        // A pass that saw a code ends the looks, even when its texts disagree and none stands: the
        // next frame decides, not another look that may read the code one way.
        guard found.isEmpty, secondLooks, region.width >= 64, region.height >= 64 else { return Self.withoutMisreads(found) }
        if secondScale {
            let halfSize = try scanHalfSize(frame, region: region)
            guard halfSize.isEmpty else { return Self.withoutMisreads(halfSize) }
        }
        return turning && turned ? try turnedLook(frame, in: region) : []
    }

    /// The viewport turned 45° (`Turn45`), scanned, with corners turned back to the frame: a linear
    /// code slanted too far from the rows and columns for any of their lines to cross all its bars.
    /// Codes whose centre lies outside the viewport are left out, as the other passes leave them.
    /// An EAN-13 or UPC-A under 3 px a module stands only when its profile reads the same
    /// (`profileAgrees`).
    public func turnedLook(_ frame: Frame, in region: PixelRect) throws(DecoderError) -> [Symbol] {
        guard region.width >= 64, region.height >= 64 else { return [] }
        let turn = Turn45(region: region)
        if turnedPixels.count != turn.side * turn.side { turnedPixels = [UInt8](repeating: 0, count: turn.side * turn.side) }
        turnedPixels.withUnsafeMutableBufferPointer { turn.turn(frame, into: $0) }
        let found = Self.withoutMisreads(
            try scan(turnedPixels, width: turn.side, height: turn.side, sequence: frame.sequence).compactMap { symbol in
                var placed = symbol
                placed.corners = Corners(symbol.corners.points.map(turn.framePoint))
                // Slanted, neither up, right, down nor left in the frame.
                placed.orientation = .unknown
                return region.contains(placed.corners.centre) ? placed : nil
            })
        var kept: [Symbol] = []
        for symbol in found {
            if RoutedDecoder.isSmallEAN(symbol) {
                guard try profileAgrees(with: symbol, in: frame) else { continue }
            }
            kept.append(symbol)
        }
        return kept
    }

    /// Whether ZBar reads `symbol`'s GTIN from its `BarProfile` in `frame`: lines across its bars at
    /// the angle the image's gradients give, averaged along them.
    ///
    /// Turned and resampled, a code smeared across its bars can read wrong on every frame: a UPC-A
    /// of 2.3 px modules turned 36° and swiped diagonally at 1 viewport width a second read as the
    /// EAN-13 `5488428161711` (its `0499429161711` with three 9s of the left half read as 8s, the
    /// check digit holding) on 15 of the pass's frames, right on 9, and zxing-cpp read nothing
    /// there; with this check, right on 1 and wrong on none. On 11 other passes of that code size,
    /// slanted and swiped every way at 0.5 and 1 viewport width a second, 582 of 598 right reads
    /// were kept. `RoutedDecoder` checks the small EAN-13s of the other looks that zxing-cpp did not
    /// read with it too.
    ///
    /// The profile keeps the part of a swipe's blur that runs across the bars, which no averaging
    /// along them undoes: an EAN-13 and a UPC-A of 1.8 px modules turned 72° and swiped along the
    /// rows at 2 viewport widths a second (about 1.8 px of blur across their bars, a module) were
    /// read right by ZBar on 7 to 15 of the frame's columns and never by their profiles, so no frame
    /// of those passes stood (the motion benchmark, 30 fps). So a profile that does not read is
    /// undone as a box blur of each length in `profileSmears` too, and the first that reads the
    /// same GTIN agrees: the profile undone 1.5 to 2.5 px read both passes, and 160 passes of
    /// EAN-13 and UPC-A codes (1.8 and 2.3 px) swiped at 1 and 2 viewport widths a second, replayed,
    /// read 3 more and none wrong.
    ///
    /// A profile that reads another GTIN, as it is or undone, agrees with neither: it holds the
    /// code's bars no better than the lines did. An EAN-13 of 2.3 px modules swiped upright along
    /// the rows at 1 viewport width a second (60 fps, 3 px of blur) read on 14 of a frame's lines as
    /// `9326781872607`, its `1396782872607` with two digits of the left half and their parity
    /// wrong, on 5 as itself; the profile read the misread as it was and the code undone 3 px, and
    /// that frame's false read went out (the motion benchmark).
    func profileAgrees(with symbol: Symbol, in frame: Frame) throws(DecoderError) -> Bool {
        guard let gtin = symbol.gtin13 else { return false }
        // A profile that read another GTIN, as it is or undone, confirms neither.
        let reads = try profileReads(around: symbol.corners.bounds, in: frame)
        return !reads.isEmpty && reads.allSatisfy { $0 == gtin }
    }

    /// The GTINs ZBar reads from the `BarProfile` around `box` in `frame`, as it is and undone as a
    /// box blur of each length in `profileSmears`, one for each reading that reads one.
    func profileReads(around box: PixelRect, in frame: Frame) throws(DecoderError) -> [[UInt8]] {
        // A read on part of the code gives part of its box: the lines reach well past it.
        let reach = min(2 * max(box.width, box.height) + 20, 400)
        guard let profile = BarProfile(frame: frame, around: box, reach: reach) else { return [] }
        let width = profile.samples.count
        func reads(_ samples: [UInt8]) throws(DecoderError) -> [[UInt8]] {
            let rows = 8
            let pixels = (0..<rows).flatMap { _ in samples }
            return try scan(pixels, width: width, height: rows, sequence: frame.sequence).compactMap(\.gtin13)
        }
        var found = try reads(profile.samples)
        let line = Frame(width: width, height: 1, pixels: profile.samples)
        for length in Self.profileSmears {
            let sharp = MotionBlur(direction: .across, length: length).deblurred(line, region: line.whole)
            found += try reads((0..<width).map { sharp[$0, 0] })
        }
        return found
    }

    /// The blurs across the bars that `profileAgrees` undoes, in half pixels (the profile's
    /// samples): 1 to 5 px, about the most through which ZBar's own lines read a code of under 3 px
    /// modules (1.6 modules: `MotionBlur`).
    static let profileSmears = 2...10

    /// The viewport at half size (2x2 means), scanned, with corners scaled back to the frame.
    private func scanHalfSize(_ frame: Frame, region: PixelRect) throws(DecoderError) -> [Symbol] {
        let width = region.width / 2
        let height = region.height / 2
        if half.count != width * height { half = [UInt8](repeating: 0, count: width * height) }
        let base = frame.storage.base.assumingMemoryBound(to: UInt8.self)
        let stride = frame.stride
        half.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let top = base + (region.y + 2 * y) * stride + region.x
                let bottom = top + stride
                for x in 0..<width {
                    let sum = Int(top[2 * x]) + Int(top[2 * x + 1]) + Int(bottom[2 * x]) + Int(bottom[2 * x + 1])
                    out[y * width + x] = UInt8(sum / 4)
                }
            }
        }
        return try scan(half, width: width, height: height, sequence: frame.sequence).map { symbol in
            var scaled = symbol
            scaled.corners = Corners(symbol.corners.points.map { Point(x: region.x + 2 * $0.x, y: region.y + 2 * $0.y) })
            // Each line of the half-size image stands for two of the frame's.
            scaled.quality *= 2
            return scaled
        }
    }

    /// Every text ZBar reported on `pixels`, a whole image of our own (`width` × `height`).
    private func scan(_ pixels: [UInt8], width: Int, height: Int, sequence: UInt64) throws(DecoderError) -> [Symbol] {
        let scanned = pixels.withUnsafeBytes { raw in
            Result { () throws(DecoderError) in
                try scan(
                    raw.baseAddress!, count: raw.count, width: width, height: height,
                    crop: PixelRect(x: 0, y: 0, width: width, height: height), sequence: sequence)
            }
        }
        return try scanned.get()
    }

    /// Every text ZBar reported on the image, misreads and all (`withoutMisreads` settles them).
    private func scan(_ pixels: UnsafeRawPointer, count: Int, width: Int, height: Int, crop: PixelRect, sequence: UInt64) throws(DecoderError) -> [Symbol] {
        if scanned { renew() }
        scanned = true
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        zbar_image_set_crop(image, UInt32(crop.x), UInt32(crop.y), UInt32(crop.width), UInt32(crop.height))
        zbar_image_set_data(image, pixels, UInt(count), nil)
        defer { zbar_image_set_data(image, nil, 0, nil) }
        guard zbar_scan_image(scanner, image) >= 0 else {
            throw DecoderError("libzbar failed on frame \(sequence)")
        }
        var symbols: [Symbol] = []
        var next = zbar_image_first_symbol(image)
        while let symbol = next {
            if var converted = Self.symbol(from: symbol), symbologies.contains(converted.symbology), !converted.bytes.isEmpty {
                // Lines of the image, not scan lines: a scan of every 4th line stands for 4 each.
                converted.quality *= Int(lineSpacing)
                symbols.append(converted)
            }
            next = zbar_symbol_next(symbol)
        }
        return symbols
    }

    /// The symbols less the scan lines' misreads of a linear code that ZBar reported beside it.
    ///
    /// ZBar decodes each scan line on its own and reports every text it found, with its quality:
    /// the number of scan lines that gave that text. A code at the edge of what the camera resolves
    /// (a small, turned or smeared EAN-13) can have a few lines decode to another text whose check
    /// digit happens to hold; ZBar then reports both texts where one code is, the misread on 4
    /// lines beside the code on 68. Two texts of one linear symbology in one place (`sharesPlace`),
    /// or an EAN-13 and a UPC-A of two GTINs (a UPC-A is an EAN-13 that starts with 0), are
    /// one code read two ways: the text on at least twice as many lines as any other is kept, and
    /// when none leads so, none is kept (the next frame decides). QR, and codes further apart, are
    /// left alone.
    static func withoutMisreads(_ symbols: [Symbol]) -> [Symbol] {
        let linear = symbols.indices.filter { symbols[$0].symbology != .qr }
        guard linear.count > 1 else { return symbols }
        var dropped = Set<Int>()
        for index in linear {
            let symbol = symbols[index]
            let rivals = linear.filter { other in
                other != index && symbols[other].isRival(of: symbol) && symbols[other].sharesPlace(with: symbol)
            }
            if rivals.contains(where: { symbols[$0].quality * 2 > symbol.quality }) { dropped.insert(index) }
        }
        return symbols.indices.filter { !dropped.contains($0) }.map { symbols[$0] }
    }

    private static func symbol(from zsym: OpaquePointer) -> Symbol? {
        guard let symbology = symbologies[zbar_symbol_get_type(zsym).rawValue] else { return nil }
        let length = Int(zbar_symbol_get_data_length(zsym))
        let bytes =
            zbar_symbol_get_data(zsym).map { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
            } ?? []
        let orientation = Self.orientation(zbar_symbol_get_orientation(zsym))
        let points = (0..<zbar_symbol_get_loc_size(zsym)).map {
            Point(x: Int(zbar_symbol_get_loc_x(zsym, $0)), y: Int(zbar_symbol_get_loc_y(zsym, $0)))
        }
        guard !points.isEmpty else { return nil }
        let corners: Corners
        if symbology == .qr, points.count == 4 {
            // ZBar lists a QR's corners counter-clockwise from the symbol's top-left.
            corners = Corners([points[0], points[3], points[2], points[1]])
        } else {
            let xs = points.map(\.x)
            let ys = points.map(\.y)
            let box = PixelRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()! + 1, height: ys.max()! - ys.min()! + 1)
            corners = Corners(box: box, orientation: orientation)
        }
        let isGS1 = zbar_symbol_get_modifiers(zsym) & (1 << ZBAR_MOD_GS1.rawValue) != 0
        return Symbol(
            symbology: symbology, bytes: bytes, isGS1: isGS1, corners: corners, orientation: orientation,
            quality: Int(zbar_symbol_get_quality(zsym)))
    }

    private static func orientation(_ value: zbar_orientation_t) -> Orientation {
        switch value {
        case ZBAR_ORIENT_UP: .up
        case ZBAR_ORIENT_RIGHT: .right
        case ZBAR_ORIENT_DOWN: .down
        case ZBAR_ORIENT_LEFT: .left
        default: .unknown
        }
    }

    /// The fourcc of ZBar's 8-bit grey format.
    private static let y800: UInt = 0x3030_3859

    private static let symbolTypes: [Symbology: zbar_symbol_type_t] = [
        .ean13: ZBAR_EAN13, .ean8: ZBAR_EAN8, .upca: ZBAR_UPCA, .upce: ZBAR_UPCE,
        .isbn10: ZBAR_ISBN10, .isbn13: ZBAR_ISBN13, .ean2: ZBAR_EAN2, .ean5: ZBAR_EAN5,
        .itf: ZBAR_I25, .code39: ZBAR_CODE39, .code93: ZBAR_CODE93, .code128: ZBAR_CODE128,
        .codabar: ZBAR_CODABAR, .databar: ZBAR_DATABAR, .databarExpanded: ZBAR_DATABAR_EXP, .qr: ZBAR_QRCODE,
    ]

    private static let symbologies: [UInt32: Symbology] = Dictionary(
        uniqueKeysWithValues: symbolTypes.map { ($0.value.rawValue, $0.key) })
}

extension Symbol {
    /// Whether this and `other` are two texts one linear code can be read as: one symbology, or
    /// both EAN-13 or UPC-A, with other data.
    fileprivate func isRival(of other: Symbol) -> Bool {
        if let gtin = gtin13, let otherGTIN = other.gtin13 { return gtin != otherGTIN }
        return symbology == other.symbology && bytes != other.bytes
    }
}
