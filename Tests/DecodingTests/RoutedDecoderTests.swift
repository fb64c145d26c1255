import Codes
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

@testable import Decoding

@Suite struct RoutedDecoderTests {
    /// A Code 128 found in `box` on `lines` scan lines.
    static func code128(_ text: String, _ box: PixelRect, lines: Int) -> Symbol {
        Symbol(symbology: .code128, bytes: Array(text.utf8), corners: Corners(box: box, orientation: .up), orientation: .up, quality: lines)
    }

    /// An EAN-13 or UPC-A as a library reports it, `width` px across (95 modules) at `x`, 40 px
    /// tall, found on `lines` scan lines.
    static func ean(_ text: String, _ symbology: Symbology = .ean13, x: Int = 200, width: Int = 171, lines: Int = 30) -> Symbol {
        Symbol(
            symbology: symbology, bytes: Array(text.utf8), corners: Corners(box: PixelRect(x: x, y: 200, width: width, height: 40), orientation: .up),
            orientation: .up, quality: lines)
    }

    /// A small EAN-13 ZBar found on few of the lines it spans (5 of 40: a code cut by the
    /// viewport's edge, in the motion benchmark) stands only when zxing-cpp read the same there;
    /// so does any small EAN-13 a moving frame's second looks found.
    @Test func aSmallEANReadOnFewLinesNeedsZXingCpp() {
        let sparse = Self.ean("5512110052213", lines: 5)
        #expect(RoutedDecoder.isFewLines(sparse))
        #expect(!RoutedDecoder.isFewLines(Self.ean("5512110052213", lines: 6)))
        #expect(RoutedDecoder.agreed([sparse], []).isEmpty)
        #expect(RoutedDecoder.agreed([sparse], [Self.ean("5512110052213", x: 420)]).isEmpty, "zxing-cpp's read elsewhere confirms nothing")
        #expect(RoutedDecoder.agreed([sparse], [Self.ean("5512110052213", lines: 1)]) == [sparse])
        let large = Self.ean("5512110052213", width: 300, lines: 5)
        #expect(RoutedDecoder.agreed([large], []) == [large])
        // A moving frame's second looks (the whole frame, the deblurred viewport): any small EAN
        // needs zxing-cpp's word, however many lines read it.
        let dense = Self.ean("6811423109911", lines: 30)
        #expect(RoutedDecoder.agreed([dense], []) == [dense])
        #expect(RoutedDecoder.agreed([dense], [], confirmed: true).isEmpty)
        #expect(RoutedDecoder.agreed([dense], [Self.ean("6811423109911")], confirmed: true) == [dense])
        #expect(RoutedDecoder.agreed([large], [], confirmed: true) == [large])
    }

    /// A code a moving frame's second looks found on one scan line (ZBar gives a point) stands only
    /// when zxing-cpp read the same there: one line of the whole-frame look across an EAN-13
    /// turned 54° gave the DataBar `0186517239475450` (the motion benchmark). The first passes'
    /// one-line reads and the second looks' reads on several lines are not held back.
    @Test func aCodeTheSecondLooksFoundOnOneLineNeedsZXingCpp() {
        func databar(x: Int, width: Int = 1, height: Int = 1) -> Symbol {
            Symbol(
                symbology: .databar, bytes: Array("0186517239475450".utf8),
                corners: Corners(box: PixelRect(x: x, y: 214, width: width, height: height), orientation: .down), orientation: .down, quality: 4)
        }
        let point = databar(x: 267)
        #expect(point.isOneLine)
        #expect(RoutedDecoder.agreed([point], [], confirmed: true).isEmpty)
        #expect(RoutedDecoder.agreed([point], [databar(x: 420, width: 90, height: 30)], confirmed: true).isEmpty, "zxing-cpp's read elsewhere")
        #expect(RoutedDecoder.agreed([point], [databar(x: 230, width: 90, height: 30)], confirmed: true) == [point])
        #expect(RoutedDecoder.agreed([point], []) == [point], "a first pass's read")
        let lines = databar(x: 230, width: 90, height: 30)
        #expect(!lines.isOneLine)
        #expect(RoutedDecoder.agreed([lines], [], confirmed: true) == [lines])
    }

    /// A linear code other than a small EAN that ZBar found on few lines of a moving frame stands
    /// only when zxing-cpp read the same there: ZBar read a Code 128 of 1.8 px modules swiped past
    /// (`OUUWESB5MGP`) as `(UUWE&B5MGP` on 1 to 7 of the 30 to 90 lines its box spanned, on every
    /// frame of its pass, where zxing-cpp read it right (the motion benchmark). Read on most of its
    /// lines, or on a still scene's frame, it stands as before; found by a moving frame's second
    /// looks, it gives way to another read of zxing-cpp's there.
    @Test func aLinearCodeReadOnFewLinesOfAMovingFrameNeedsZXingCpp() {
        func code128(_ text: String, lines: Int, width: Int = 272, height: Int = 70) -> Symbol {
            Self.code128(text, PixelRect(x: 64, y: 208, width: width, height: height), lines: lines)
        }
        let sparse = code128("(UUWE&B5MGP", lines: 7)
        #expect(RoutedDecoder.isSparse(sparse))
        #expect(RoutedDecoder.agreed([sparse], [code128("OUUWESB5MGP", lines: 1)], moving: true).isEmpty)
        #expect(RoutedDecoder.agreed([sparse], [], moving: true).isEmpty)
        #expect(RoutedDecoder.agreed([sparse], [code128("(UUWE&B5MGP", lines: 1)], moving: true) == [sparse])
        #expect(RoutedDecoder.agreed([sparse], []) == [sparse], "a still scene's read")
        let point = code128("(UUWE&B5MGP", lines: 1, width: 1, height: 1)
        #expect(RoutedDecoder.agreed([point], [], moving: true).isEmpty)
        let dense = code128("(UUWE&B5MGP", lines: 40)
        #expect(!RoutedDecoder.isSparse(dense))
        #expect(RoutedDecoder.agreed([dense], [], moving: true) == [dense])
        // A moving frame's second looks (the whole frame, every 4th line): read on more of the
        // lines they scan, it gives way to zxing-cpp's other read there, and to nothing else.
        #expect(RoutedDecoder.agreed([dense], [code128("OUUWESB5MGP", lines: 1)], confirmed: true).isEmpty)
        #expect(RoutedDecoder.agreed([dense], [code128("OUUWESB5MGP", lines: 1)], moving: true) == [dense])
        #expect(RoutedDecoder.agreed([dense], [], confirmed: true) == [dense])
    }

    /// A code found on one line that another read on the same frame varies in a few characters is
    /// not kept, wherever the two lie: the turned look read a Code 128 swiped past at 45° as
    /// `55Z66E6OU5W` and `5&Z6(E6(U5W`, each on one line, its points at the code's two ends. Read
    /// on most of its lines, the other read stands; a code of other text, or of few characters
    /// alike, stands beside it.
    @Test func aCodeFoundOnOneLineThatAnotherReadVariesIsDropped() {
        func code128(_ text: String, x: Int, y: Int, lines: Int = 1, side: Int = 1) -> Symbol {
            Self.code128(text, PixelRect(x: x, y: y, width: side, height: side), lines: lines)
        }
        let right = code128("55Z66E6OU5W", x: 146, y: 330)
        let wrong = code128("5&Z6(E6(U5W", x: 344, y: 139)
        #expect(RoutedDecoder.uncontradicted([wrong, right]).isEmpty)
        let dense = code128("55Z66E6OU5W", x: 20, y: 300, lines: 100, side: 120)
        #expect(RoutedDecoder.uncontradicted([wrong, dense]) == [dense])
        let other = code128("8XK2Q7MLB40", x: 344, y: 139)
        #expect(RoutedDecoder.uncontradicted([other, right]).count == 2)
    }

    /// A small EAN-13 that ZBar read one way and zxing-cpp another over it is kept by neither; the
    /// same read, a UPC-A read as its EAN-13, no read, a code elsewhere or a large code keep it.
    @Test func aSmallEANTheLibrariesReadTwoWaysIsDropped() {
        let zbar = Self.ean("6809742914682")
        #expect(RoutedDecoder.agreed([zbar], [Self.ean("5809549974682")]).isEmpty)
        #expect(RoutedDecoder.agreed([zbar], [Self.ean("6809742914682")]) == [zbar])
        #expect(RoutedDecoder.agreed([zbar], []) == [zbar])
        #expect(RoutedDecoder.agreed([zbar], [Self.ean("5809549974682", x: 420)]) == [zbar])
        let upca = Self.ean("036000291452", .upca)
        #expect(RoutedDecoder.agreed([upca], [Self.ean("0036000291452")]) == [upca])
        let large = Self.ean("6809742914682", width: 300)
        #expect(RoutedDecoder.agreed([large], [Self.ean("5809549974682", width: 300)]) == [large])
        let qr = Symbol(symbology: .qr, bytes: Array("Q".utf8), corners: Corners(box: PixelRect(x: 200, y: 200, width: 40, height: 40), orientation: .up))
        #expect(RoutedDecoder.agreed([qr, zbar], [Self.ean("5809549974682")]) == [qr])
    }

    /// A still image's closer looks drop linear codes read two ways in one place: zxing-cpp read a
    /// defocused UPC-E scaled up and sharpened as three. The same digits as UPC-A and EAN-13, a code
    /// elsewhere, an EAN add-on beside its EAN, and 2D codes that overlap (a QR inside a QR) stand.
    @Test func aCloserLooksLinearCodesReadTwoWaysInOnePlaceAreDropped() {
        let first = Self.ean("01860900", .upce)
        let second = Self.ean("01264904", .upce, x: 230)
        #expect(RoutedDecoder.uncontradicted([first, second]).isEmpty)
        #expect(RoutedDecoder.uncontradicted([first, Self.ean("01264904", .upce, x: 420)]).count == 2)
        let upca = Self.ean("036000291452", .upca)
        #expect(RoutedDecoder.uncontradicted([upca, Self.ean("0036000291452", x: 210)]).count == 2)
        // An EAN add-on lies right beside its EAN: two codes, not one read two ways.
        #expect(RoutedDecoder.uncontradicted([upca, Self.ean("52495", .ean5, x: 372, width: 40)]).count == 2)
        func qr(_ text: String, side: Int) -> Symbol {
            Symbol(symbology: .qr, bytes: Array(text.utf8), corners: Corners(box: PixelRect(x: 200, y: 200, width: side, height: side), orientation: .up))
        }
        #expect(RoutedDecoder.uncontradicted([qr("outer", side: 80), qr("inner", side: 30), upca]).map(\.symbology) == [.qr, .qr, .upca])
    }

    /// A linear code the two libraries read two ways in one place is reported by neither: ZBar read
    /// a Code 128 as `(UUWE&B5MGP`, zxing-cpp as its `OUUWESB5MGP`, and a still image gave both. The
    /// same text from both is one code; two codes apart, each read on most of its lines, or a QR
    /// over it, stand.
    @Test func aLinearCodeTheLibrariesReadTwoWaysIsReadByNeither() {
        func code128(_ text: String, x: Int = 200) -> Symbol {
            Self.code128(text, PixelRect(x: x, y: 200, width: 150, height: 40), lines: 30)
        }
        #expect(RoutedDecoder.merged([code128("(UUWE&B5MGP")], [code128("OUUWESB5MGP")]).isEmpty)
        #expect(RoutedDecoder.merged([code128("OUUWESB5MGP")], [code128("OUUWESB5MGP")]) == [code128("OUUWESB5MGP")])
        #expect(RoutedDecoder.merged([code128("(UUWE&B5MGP")], [code128("OUUWESB5MGP", x: 400)]).count == 2)
        let qr = Symbol(symbology: .qr, bytes: Array("Q".utf8), corners: Corners(box: PixelRect(x: 200, y: 200, width: 40, height: 40), orientation: .up))
        #expect(RoutedDecoder.merged([code128("OUUWESB5MGP")], [qr]).count == 2)
    }

    /// zxing-cpp read a UPC-A turned 270° in the motion benchmark as its `650402547087` on a few
    /// columns of one frame and as the EAN-13 `8650042547081` on others beside them: boxes that do
    /// not overlap, on the same stretch of the same bars. Neither is read from that frame. Codes
    /// further apart across their bars than half their length, codes beside each other along the
    /// way they read, and two Code 128s stacked on a label stand.
    @Test func anEANReadTwoWaysOnLinesAlongsideIsReadByNeither() {
        func read(_ symbology: Symbology, _ text: String, _ points: [(Int, Int)]) -> Symbol {
            Symbol(symbology: symbology, bytes: Array(text.utf8), corners: Corners(points.map { Point(x: $0.0, y: $0.1) }))
        }
        func shifted(_ x: Int, _ y: Int = 0) -> [(Int, Int)] { [(273 + x, 325 + y), (273 + x, 155 + y), (268 + x, 154 + y), (268 + x, 324 + y)] }
        let right = read(.upca, "650402547087", shifted(0))
        let wrong = read(.ean13, "8650042547081", [(329, 325), (329, 154), (319, 154), (319, 325)])
        #expect(!right.sharesPlace(with: wrong))
        #expect(RoutedDecoder.merged([], [right, wrong]).isEmpty)
        #expect(RoutedDecoder.merged([wrong], [right]).isEmpty)
        // The same code read on other columns, or another code a label's height away, stands.
        #expect(RoutedDecoder.merged([], [right, read(.upca, "650402547087", shifted(40))]).count == 2)
        #expect(RoutedDecoder.merged([], [right, read(.ean13, "8650042547081", shifted(130))]).count == 2)
        // Two codes one after the other along the way they read.
        #expect(RoutedDecoder.merged([], [right, read(.ean13, "8650042547081", shifted(0, -200))]).count == 2)
        // Two Code 128s stacked close on a logistics label: their bars may be short.
        let first = read(.code128, "00012345678901234567", [(100, 100), (400, 100), (400, 104), (100, 104)])
        let second = read(.code128, "02012345678901234567", [(100, 150), (400, 150), (400, 154), (100, 154)])
        #expect(RoutedDecoder.merged([first], [second]).count == 2)
    }

    /// On a still image a UPC-E or EAN-8 with bars in its quiet zone gives way to a code read over
    /// it, which it was part of (ZBar read the middle of a UPC-A as the UPC-E `00278344` on a photo
    /// of the corpus, and the closer looks read the UPC-A), and stands beside a code elsewhere or
    /// alone.
    @Test func aFragmentGivesWayToTheCodeReadOverIt() {
        let upca = Self.ean("625034201058", .upca)
        let fragment = Self.ean("00278344", .upce, x: 240, width: 100)
        #expect(RoutedDecoder.givingWay([fragment], to: [upca]) == [upca])
        let elsewhere = Self.ean("625034201058", .upca, x: 400)
        #expect(RoutedDecoder.givingWay([fragment], to: [elsewhere]) == [elsewhere, fragment])
        #expect(RoutedDecoder.givingWay([fragment], to: []) == [fragment])
    }

    /// A still image of a UPC-E with bars past its end, which nothing else reads over, still reads
    /// with every look of the default config: the closer looks run, and the library's read stands.
    @Test func aStillShortCodeWithBarsInItsQuietZoneStands() throws {
        let upce = try ImageFile.read(path: Barcodes.zint(.upce, "0123456", scale: 2))
        let barred = Barcodes.barredPastEnd(Barcodes.centred(upce, in: Size(width: 640, height: 480)), direction: 1)
        let decoder = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        let read = try decoder.symbols(in: barred, viewport: .standard)
        try #require(read.contains { QuietZone.hasBars($0, in: barred) }, "the read has bars in its quiet zone: \(read)")
        #expect(read.map(\.bytes) == [Array("01234565".utf8)])
    }

    /// A Code 128 wider than the viewport and centred in it is read on a moving scene's frame:
    /// when the viewport gave nothing, ZBar looks at the whole frame. One centred outside the
    /// viewport is not a code in view.
    @Test func aCodeWiderThanTheViewportIsReadInMotion() throws {
        let text = "SHIP-0123456789-ABCD"
        let image = try ImageFile.read(path: Barcodes.zint(.code128, text, scale: 1))
        let size = Size(width: 640, height: 480)
        let viewport = Viewport.standard.pixels(in: size)
        try #require(image.width > viewport.width + 100, "\(image.width) px")
        let decoder = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        let centred = Barcodes.centred(image, in: size)
        #expect(try decoder.symbols(in: centred, viewport: .standard, pass: .moving).map(\.bytes) == [Array(text.utf8)])
        let above = Barcodes.compose(size: size, background: 220, placing: [(image, Point(x: (size.width - image.width) / 2, y: 0))])
        try #require(image.height / 2 < viewport.y)
        #expect(try decoder.symbols(in: above, viewport: .standard, pass: .moving).isEmpty)
        #expect(try decoder.symbols(in: above, viewport: .full, pass: .moving).map(\.bytes) == [Array(text.utf8)])
    }

    /// A Code 128 of 2 px modules wider than the viewport, smeared 3 px along the rows by a swipe,
    /// is read on a moving scene's frame by zxing-cpp along the rows of the frame's whole width,
    /// where ZBar's whole-frame look reads nothing (the motion benchmark's upright Code 128 at
    /// 1 viewport width a second).
    @Test func aBlurredCodeWiderThanTheViewportIsReadInMotion() throws {
        let text = "F6CXZ7GQSYABKM"
        let image = try ImageFile.read(path: Barcodes.zint(.code128, text, scale: 1))
        let size = Size(width: 640, height: 480)
        let viewport = Viewport.standard.pixels(in: size)
        try #require(image.width > viewport.width, "\(image.width) px")
        let frame = Barcodes.motionBlurred(Barcodes.centred(image, in: size, background: 150), length: 3)
        let whole = try #require(try RoutedDecoder.wholeFrameLook(DecoderConfig()))
        #expect(try whole.decode(frame, in: PixelRect(x: 0, y: 0, width: size.width, height: size.height), secondLooks: false).isEmpty)
        let decoder = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        let found = try decoder.symbols(in: frame, viewport: .standard, pass: .moving)
        #expect(found.map(\.bytes) == [Array(text.utf8)], "\(found)")
    }

    /// A small EAN-13 with short bars (0.3 of its width), swiped past slanted 36°, 54° or 144°, is
    /// read on a moving scene's frame by ZBar on the viewport turned 45°, where no row or column of
    /// the frame crosses it whole; a small EAN-13 still (its box's extents, not the slanted box's).
    @Test(arguments: [36.0, 54.0, 144.0])
    func aSlantedCodeIsReadInMotion(degrees: Double) throws {
        let image = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 1, extra: ["--height=30"]))
        let frame = Barcodes.centred(Barcodes.turned(image, degrees: degrees, scale: 1), in: Size(width: 640, height: 480))
        var unturned = DecoderConfig()
        unturned.preprocessing.remove(.turned)
        let without = try RoutedDecoder(config: unturned, fallback: true, everything: true)
        #expect(try without.symbols(in: frame, viewport: .standard, pass: .moving).isEmpty)
        let decoder = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        let found = try decoder.symbols(in: frame, viewport: .standard, pass: .moving)
        #expect(found.map(\.bytes) == [Array("5901234123457".utf8)])
        #expect(found.allSatisfy(RoutedDecoder.isSmallEAN))
    }

    /// A moving frame's look whose reads all give way does not end the looking. Two EAN-13s printed
    /// one just above the other lie as one code read two ways on other lines would
    /// (`uncontradicted` keeps neither); the whole-frame look reads them and nothing of that
    /// stands, so the turned look still runs and reads the EAN-13 slanted 45° below them.
    @Test func aLookWhoseReadsAllGiveWayDoesNotEndTheLooking() throws {
        let size = Size(width: 640, height: 480)
        func ean(_ digits: String) throws -> Frame {
            try ImageFile.read(path: Barcodes.zint(.ean13, digits, scale: 1, extra: ["--height=30", "--notext"]))
        }
        let (upper, lower) = (try ean("590123412345"), try ean("400638133393"))
        let slanted = Barcodes.turned(try ean("978020137962"), degrees: 45, scale: 1)
        let pair = [(upper, Point(x: (size.width - upper.width) / 2, y: 70)), (lower, Point(x: (size.width - lower.width) / 2, y: 70 + upper.height))]
        let decoder = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        let alone = Barcodes.compose(size: size, placing: pair)
        #expect(try decoder.symbols(in: alone, viewport: .standard, pass: .moving).isEmpty, "the pair gives way")
        let frame = Barcodes.compose(size: size, placing: [(slanted, Point(x: (size.width - slanted.width) / 2, y: 330 - slanted.height / 2))] + pair)
        #expect(try decoder.symbols(in: frame, viewport: .standard, pass: .moving).map(\.bytes) == [Array("9780201379624".utf8)])
    }

    /// The turned look is a still image's second look and a moving frame's, not that of a still
    /// scene's ZBar look in a stream, which the gate's safety-net decodes of an idle scanner take.
    @Test func aStillSceneInAStreamGetsNoTurnedLook() throws {
        let image = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 1, extra: ["--height=30"]))
        let frame = Barcodes.centred(Barcodes.turned(image, degrees: 45, scale: 1), in: Size(width: 640, height: 480))
        let decoder = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        let text = [Array("5901234123457".utf8)]
        #expect(try decoder.symbols(in: frame, viewport: .standard).map(\.bytes) == text)
        #expect(try decoder.symbols(in: frame, viewport: .standard, pass: .moving).map(\.bytes) == text)
        #expect(try decoder.symbols(in: frame, viewport: .standard, pass: .zbar).isEmpty)
    }

    /// A small EAN-13 that both libraries read is reported by ZBar's look of a stream, checked.
    @Test func aSmallEANBothLibrariesReadIsKept() throws {
        let image = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 1))
        let frame = Barcodes.centred(image, in: Size(width: 640, height: 480))
        let decoder = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        let region = Viewport.standard.pixels(in: frame.size)
        let found = try decoder.decode(frame, in: region, pass: .zbar, secondLooks: false, narrowed: false, travel: nil)
        #expect(found.map(\.bytes) == [Array("5901234123457".utf8)])
        #expect(found.allSatisfy(RoutedDecoder.isSmallEAN))
    }
}
