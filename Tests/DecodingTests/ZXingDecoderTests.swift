import Codes
import Decoding
import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

@Suite struct ZXingDecoderTests {
    static func config(_ engine: DecoderEngine, _ symbologies: Set<Symbology>) -> DecoderConfig {
        var config = DecoderConfig()
        config.engine = engine
        config.symbologies = symbologies
        return config
    }

    @Test(arguments: [
        (Symbology.datamatrix, "DataMatrix at the till", 3),
        (.aztec, "Aztec ticket 42", 3),
        (.pdf417, "PDF417 boarding pass", 2),
    ])
    func readsWhatZBarCannot(symbology: Symbology, text: String, scale: Int) throws {
        let image = try ImageFile.read(path: Barcodes.zint(symbology, text, scale: scale))
        let frame = Barcodes.centred(image, in: Size(width: max(640, image.width + 40), height: max(480, image.height + 40)))
        let decoder = try Decoders.make(Self.config(.both, DecoderEngine.both.defaultSymbologies))
        let symbols = try decoder.symbols(in: frame, viewport: .full)
        let symbol = try #require(symbols.first)
        #expect(symbols.count == 1)
        #expect(symbol.symbology == symbology)
        #expect(String(decoding: symbol.bytes, as: UTF8.self) == text)
        // zxing-cpp gives pixel edges, so a corner may sit one past the last pixel.
        let drawn = PixelRect(x: (frame.width - image.width) / 2, y: (frame.height - image.height) / 2, width: image.width + 1, height: image.height + 1)
        #expect(symbol.corners.points.allSatisfy { drawn.contains($0) }, "corners \(symbol.corners.points) outside \(drawn)")
        #expect(Read(symbol: symbol, frame: frame.size).aim == symbology.aimIdentifier(gs1: false))
    }

    @Test func gs1DataMatrixIsMarkedAndParsed() throws {
        let path = try Barcodes.zint(.datamatrix, "[01]09506000134352[10]AB1[17]270101", gs1: true, scale: 3)
        let decoder = try ZXingDecoder(config: Self.config(.zxing, [.datamatrix]))
        let symbol = try #require(try decoder.symbols(in: ImageFile.read(path: path), viewport: .full).first)
        let read = Read(symbol: symbol, frame: Size(width: 1, height: 1))
        #expect(read.aim == "]d2")
        #expect(read.gs1?.map(\.ai) == ["01", "10", "17"])
    }

    /// A small Data Matrix turned 60° or 120° is read by the first pass of a stream frame, which
    /// looks at linear codes unturned: zxing-cpp 3.1.1 finds such a Data Matrix only with
    /// tryRotate. With every symbology on, and with Data Matrix alone.
    @Test(arguments: [60.0, 120.0])
    func aTurnedDataMatrixIsReadByTheFirstPass(degrees: Double) throws {
        let text = "KIOSK-DM-\(Int(degrees))"
        // zint draws 2 px a module at scale 1: turned and drawn at 2.5 px a module.
        let dm = Barcodes.turned(try ImageFile.read(path: Barcodes.zint(.datamatrix, text, scale: 1)), degrees: degrees, scale: 1.25)
        let frame = Barcodes.centred(dm, in: Size(width: 640, height: 480))
        let region = Viewport.standard.pixels(in: frame.size)
        for symbologies in [DecoderEngine.both.defaultSymbologies, [.datamatrix]] {
            let decoder = try ZXingDecoder(config: Self.config(.both, symbologies))
            let found = try decoder.decode(frame, in: region, pass: .first, linearCodes: true)
            #expect(found.map(\.bytes) == [Array(text.utf8)], "\(symbologies.count) symbologies")
        }
    }

    @Test func onlyTheViewportIsHandedToZXing() throws {
        let dm = try ImageFile.read(path: Barcodes.zint(.datamatrix, "corner", scale: 5))
        let frame = Barcodes.compose(size: Size(width: 640, height: 480), placing: [(dm, Point(x: 30, y: 30))])
        let decoder = try ZXingDecoder(config: Self.config(.zxing, [.datamatrix]))
        #expect(try decoder.symbols(in: frame, viewport: .standard).isEmpty)
        let found = try #require(try decoder.symbols(in: frame, viewport: .rect(x: 0, y: 0, width: 0.5, height: 0.5)).first)
        // Corners come back in frame coordinates even though only the region was decoded.
        #expect(found.corners.bounds.x < 60 && found.corners.bounds.y < 60)
        let centred = try #require(try decoder.symbols(in: Barcodes.centred(dm, in: frame.size), viewport: .standard).first)
        #expect(centred.corners.bounds.x > 200)
    }

    /// Text that names its character set (ECI) comes as UTF-8. Data without an ECI comes as it is,
    /// as ZBar gives it: zxing-cpp would guess Latin-1 here and convert.
    @Test func textInAnECICharacterSetComesAsUTF8AndOtherDataAsItIs() throws {
        let cyrillic = try Barcodes.zint(.datamatrix, "Ж Привет", scale: 3, extra: ["--eci=7"])
        let dm = try ZXingDecoder(config: Self.config(.zxing, [.datamatrix]))
        let text = try #require(try dm.symbols(in: ImageFile.read(path: cyrillic), viewport: .full).first)
        #expect(String(validating: text.bytes, as: UTF8.self) == "Ж Привет")
        let qr = try ZXingDecoder(config: Self.config(.zxing, [.qr]))
        for data: [UInt8] in [[0x41, 0x42, 0x01, 0x02, 0xfe, 0xff], Array("caf\u{e9} cr\u{e8}me".unicodeScalars.map { UInt8($0.value) })] {
            let symbol = try #require(try qr.symbols(in: ImageFile.read(path: Barcodes.qr(bytes: data)), viewport: .full).first)
            #expect(symbol.bytes == data)
        }
    }

    /// Stacked DataBar (zint 79, 80), which aborted zxing-cpp 1.4.0, is read by zxing-cpp 3 with
    /// the text ZBar gives DataBar.
    @Test(arguments: [79, 80])
    func stackedDataBarIsRead(zintType: Int) throws {
        let path = try TemporaryDirectory.shared.file("stacked-\(zintType).png")
        try Tool.run("zint", ["-b", String(zintType), "-d", "0950600013435", "--quietzones", "-o", path])
        let zxing = try ZXingDecoder(config: Self.config(.zxing, ZXingDecoder.supported))
        let symbols = try zxing.symbols(in: ImageFile.read(path: path), viewport: .full)
        #expect(symbols.map(\.symbology) == [.databar])
        #expect(symbols.map { String(decoding: $0.bytes, as: UTF8.self) } == ["0109506000134352"])
    }

    /// A large Code 128 (704x544), which aborted zxing-cpp 1.4.0 when its downscaled pass read it
    /// again, is read once.
    @Test func largeCode128IsReadOnce() throws {
        let path = try TemporaryDirectory.shared.file("large-code128.png")
        try Tool.run("zint", ["-b", "20", "-d", "123456", "--scale=4", "--height=60", "--quietzones", "-o", path])
        let zxing = try ZXingDecoder(config: Self.config(.zxing, ZXingDecoder.supported))
        let symbols = try zxing.symbols(in: ImageFile.read(path: path), viewport: .full)
        #expect(symbols.map(\.symbology) == [.code128])
        #expect(symbols.map { String(decoding: $0.bytes, as: UTF8.self) } == ["123456"])
    }

    /// The retail codes' text does not depend on the library: UPC-A 12 digits, UPC-E 8 as printed,
    /// EAN-13 13 and EAN-8 8, from ZBar and from zxing-cpp alike, with the same symbology.
    @Test(arguments: DrawnCodes.retail)
    func retailTextIsTheSameFromBothLibraries(symbology: Symbology, data: String, expected: String) throws {
        let frame = Barcodes.centred(try ImageFile.read(path: Barcodes.zint(symbology, data)), in: Size(width: 640, height: 480))
        let retail = DrawnCodes.retailSymbologies
        for decoder: any Decoder in [try ZBarDecoder(config: Self.config(.zbar, retail)), try ZXingDecoder(config: Self.config(.zxing, retail))] {
            let symbols = try decoder.symbols(in: frame, viewport: .full)
            #expect(symbols.map(\.symbology) == [symbology], "\(type(of: decoder))")
            #expect(symbols.map { String(decoding: $0.bytes, as: UTF8.self) } == [expected], "\(type(of: decoder))")
        }
    }

    /// DataBar Limited, Micro QR and rMQR, which no other library here reads, each drawn by zint.
    @Test(arguments: [
        (Symbology.databarLimited, "0950600013435", "0109506000134352", "]e0"),
        (.microqr, "MQR42", "MQR42", "]Q1"),
        (.rmqr, "rMQR at the kiosk", "rMQR at the kiosk", "]Q1"),
    ])
    func readsTheNewSymbologies(symbology: Symbology, data: String, expected: String, aim: String) throws {
        let image = try ImageFile.read(path: Barcodes.zint(symbology, data, scale: 4))
        let frame = Barcodes.centred(image, in: Size(width: max(640, image.width + 40), height: max(480, image.height + 40)))
        for engine in [DecoderEngine.zxing, .both] {
            let decoder = try Decoders.make(Self.config(engine, engine.defaultSymbologies.union([symbology])))
            let symbols = try decoder.symbols(in: frame, viewport: .full)
            #expect(symbols.map(\.symbology) == [symbology], "\(engine)")
            #expect(symbols.map { String(decoding: $0.bytes, as: UTF8.self) } == [expected], "\(engine)")
            if let symbol = symbols.first { #expect(Read(symbol: symbol, frame: frame.size).aim == aim) }
        }
        // A QR-only config reads no Micro QR or rMQR: they are symbologies of their own.
        #expect(try ZXingDecoder(config: Self.config(.zxing, [.qr])).symbols(in: frame, viewport: .full).isEmpty)
    }

    @Test func engineSettingsThatCannotWorkAreErrors() throws {
        #expect(throws: DecoderError.self) { try Decoders.make(Self.config(.zbar, [.qr, .datamatrix])) }
        #expect(throws: DecoderError.self) { try Decoders.make(Self.config(.zxing, [.qr, .ean5])) }
        #expect(throws: DecoderError.self) { try Decoders.make(Self.config(.zbar, [.qr, .microqr])) }
        #expect(throws: DecoderError.self) { try Decoders.make(Self.config(.zxing, [.isbn13])) }
        #expect(try Decoders.make(Self.config(.zxing, [.code128, .ean13])).passes == [.whole])
        #expect(ZXingDecoder.supported == Set(Symbology.allCases).subtracting(DecoderEngine.zbarOnly))
        #expect(DecoderEngine.zxing.defaultSymbologies.isSubset(of: ZXingDecoder.supported))
    }

    /// The capability table says what each library's own symbology map holds, and the config and
    /// the decoders refuse with the same words.
    @Test func theCapabilityTableMatchesTheLibrariesMaps() throws {
        #expect(ZBarDecoder.supported == Set(Symbology.allCases.filter { $0.readers.contains(.zbar) }))
        #expect(ZXingDecoder.supported == Set(Symbology.allCases.filter { $0.readers.contains(.zxing) }))
        #expect(Symbology.allCases.allSatisfy { !$0.readers.isEmpty })
        for (engine, symbologies) in [(DecoderEngine.zbar, Set<Symbology>([.qr, .datamatrix])), (.zxing, [.qr, .ean5])] {
            let refusal = try #require(engine.refusal(for: symbologies))
            let error = #expect(throws: DecoderError.self) { try Decoders.make(Self.config(engine, symbologies)) }
            #expect(error?.description == refusal)
        }
        #expect(DecoderEngine.both.refusal(for: Set(Symbology.allCases)) == nil)
    }
}
