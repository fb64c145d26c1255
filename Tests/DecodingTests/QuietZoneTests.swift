import Codes
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

@testable import Decoding

@Suite struct QuietZoneTests {
    /// A UPC-E or EAN-8 whose end guard is followed by bars, as the middle of a longer code is (ZBar
    /// read an upside-down UPC-A's middle as the UPC-E `02778488` in the motion benchmark), has bars
    /// in its quiet zone, though ZBar reads it; the same code with its quiet zones clear has none,
    /// upright and upside down.
    @Test(arguments: [(Symbology.upce, "0123456", "01234565"), (.ean8, "9638507", "96385074")], [0.0, 180.0])
    func aShortCodeWithBarsPastItsEndHasBarsInItsQuietZone(code: (Symbology, String, String), degrees: Double) throws {
        let image = Barcodes.turned(try ImageFile.read(path: Barcodes.zint(code.0, code.1, scale: 2)), degrees: degrees, scale: 1)
        let size = Size(width: 640, height: 480)
        let clear = Barcodes.centred(image, in: size)
        // The bars on the right of the upright code, on the left of the one upside down.
        let barred = Barcodes.barredPastEnd(clear, direction: degrees == 0 ? 1 : -1)
        var config = DecoderConfig()
        config.engine = .zbar
        config.symbologies = DecoderEngine.zbar.defaultSymbologies
        let zbar = try ZBarDecoder(config: config)
        let region = Viewport.standard.pixels(in: size)
        let text = [Array(code.2.utf8)]
        let clearRead = try zbar.decode(clear, in: region, secondLooks: false)
        try #require(clearRead.map(\.bytes) == text)
        #expect(!QuietZone.hasBars(clearRead[0], in: clear))
        let barredRead = try zbar.decode(barred, in: region, secondLooks: false)
        try #require(barredRead.map(\.bytes) == text, "ZBar reads the code with bars past its end")
        #expect(QuietZone.hasBars(barredRead[0], in: barred))
    }

    /// Turned 36° and read by the turned look (its corners slanted, its orientation unknown), the
    /// code's bars past its end are found along its slant: the turned look read the middle of a UPC-A turned 36° as the UPC-E `02011743` on
    /// every frame of a pass in the motion benchmark.
    @Test func aTurnedShortCodeWithBarsPastItsEndHasBarsInItsQuietZone() throws {
        let upright = Barcodes.centred(try ImageFile.read(path: Barcodes.zint(.upce, "0123456", scale: 1)), in: Size(width: 640, height: 480))
        var config = DecoderConfig()
        config.engine = .zbar
        config.symbologies = DecoderEngine.zbar.defaultSymbologies
        let zbar = try ZBarDecoder(config: config)
        for barred in [false, true] {
            let frame = Barcodes.turned(barred ? Barcodes.barredPastEnd(upright, direction: 1) : upright, degrees: 36, scale: 1)
            let region = Viewport.standard.pixels(in: Size(width: frame.width, height: frame.height))
            let read = try zbar.turnedLook(frame, in: region)
            try #require(read.map(\.bytes) == [Array("01234565".utf8)] && read[0].orientation == .unknown)
            #expect(QuietZone.hasBars(read[0], in: frame) == barred)
        }
    }

    /// An EAN-13 or UPC-A (2 px modules) with bars 1.5 to 5.5 modules past either end, as when its
    /// 95 modules are the middle of a Code 128 (zxing-cpp read one cut by the viewport's edge as the
    /// UPC-A `901715996711` in the motion benchmark), has bars in its quiet zone; upright and upside
    /// down.
    @Test(arguments: [(Symbology.ean13, "590123412345", "5901234123457"), (.upca, "01234567890", "012345678905")], [0.0, 180.0])
    func aLongRetailCodeWithBarsBesideItHasBarsInItsQuietZone(code: (Symbology, String, String), degrees: Double) throws {
        let image = Barcodes.turned(try ImageFile.read(path: Barcodes.zint(code.0, code.1, scale: 1)), degrees: degrees, scale: 1)
        let size = Size(width: 640, height: 480)
        let clear = Barcodes.centred(image, in: size)
        var config = DecoderConfig()
        config.engine = .zbar
        config.symbologies = [code.0]
        let read = try ZBarDecoder(config: config).decode(clear, in: Viewport.standard.pixels(in: size), secondLooks: false)
        try #require(read.map(\.bytes) == [Array(code.2.utf8)])
        #expect(!QuietZone.hasBars(read[0], in: clear))
        for direction in [-1, 1] {
            #expect(QuietZone.hasBars(read[0], in: Barcodes.barredPastEnd(clear, direction: direction)), "bars on the \(direction < 0 ? "left" : "right")")
        }
    }

    /// An EAN-13's add-on, 7 modules past its end guard (the least the standard allows), is not
    /// bars in its quiet zone.
    @Test func anEANAddOnIsNoBarsInTheQuietZone() throws {
        let size = Size(width: 640, height: 480)
        let frame = Barcodes.centred(try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345+12", scale: 1, extra: ["--addongap=7"])), in: size)
        var config = DecoderConfig()
        config.engine = .zbar
        config.symbologies = [.ean13]
        let read = try ZBarDecoder(config: config).decode(frame, in: Viewport.standard.pixels(in: size), secondLooks: false)
        try #require(read.map(\.bytes) == [Array("5901234123457".utf8)], "ZBar reads the EAN-13 without its add-on")
        #expect(!QuietZone.hasBars(read[0], in: frame))
    }

    /// A read whose box is narrower than its code at 1 px a module was read from one side only:
    /// ZBar's lines gave one end. Other symbologies are not checked.
    @Test func aShortCodeReadFromOneSideOnlyHasBarsInItsQuietZone() {
        let frame = Frame(width: 200, height: 100, pixels: [UInt8](repeating: 200, count: 200 * 100))
        func read(_ symbology: Symbology, width: Int) -> Symbol {
            let box = PixelRect(x: 50, y: 30, width: width, height: 40)
            return Symbol(symbology: symbology, bytes: Array("01234565".utf8), corners: Corners(box: box, orientation: .up), orientation: .up, quality: 10)
        }
        #expect(QuietZone.hasBars(read(.upce, width: 1), in: frame))
        #expect(!QuietZone.hasBars(read(.upce, width: 102), in: frame))
        #expect(!QuietZone.hasBars(read(.ean13, width: 1), in: frame))
    }
}
