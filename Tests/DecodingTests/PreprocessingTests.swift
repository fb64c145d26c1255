import Decoding
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// The second looks on frames where the first pass found nothing.
@Suite struct PreprocessingTests {
    /// A QR code light on dark, as a phone in dark mode shows it.
    static func invertedQR(_ text: String) throws -> Frame {
        let frame = Barcodes.centred(try ImageFile.read(path: Barcodes.qr(text, moduleSize: 4)), in: Size(width: 640, height: 480))
        let pixels = (0..<frame.height).flatMap { y in (0..<frame.width).map { x in 255 - frame[x, y] } }
        return Frame(width: frame.width, height: frame.height, pixels: pixels)
    }

    static func decoder(_ engine: DecoderEngine, _ passes: Set<Preprocessing>) throws -> any Decoder {
        var config = DecoderConfig()
        config.engine = engine
        config.preprocessing = passes
        config.symbologies = engine.defaultSymbologies
        return try Decoders.make(config)
    }

    @Test func anInvertedCodeIsReadOnlyWithTheInvertedPass() throws {
        let frame = try Self.invertedQR("dark mode")
        #expect(try Self.decoder(.zbar, []).symbols(in: frame, viewport: .standard).isEmpty)
        let found = try Self.decoder(.zbar, [.inverted]).symbols(in: frame, viewport: .standard)
        #expect(found.map { String(decoding: $0.bytes, as: UTF8.self) } == ["dark mode"])
    }

    @Test func aDecodeWithoutSecondLooksRunsTheFirstPassOnly() throws {
        // The gate's timer decodes on an unchanged scene skip the second looks; the next full decode takes them again.
        let decoder = try Self.decoder(.zbar, Preprocessing.defaults)
        let inverted = try Self.invertedQR("dark mode")
        let grainy = Self.grain(
            Barcodes.centred(try ImageFile.read(path: Barcodes.qr("scaled", moduleSize: 6)), in: Size(width: 640, height: 480)), amplitude: 150)
        for round in 0..<2 {
            #expect(try decoder.symbols(in: inverted, viewport: .standard, secondLooks: false).isEmpty, "round \(round)")
            #expect(try decoder.symbols(in: grainy, viewport: .standard, secondLooks: false).isEmpty, "round \(round)")
            #expect(try decoder.symbols(in: inverted, viewport: .standard).map(\.bytes) == [Array("dark mode".utf8)], "round \(round)")
            #expect(try decoder.symbols(in: grainy, viewport: .standard).map(\.bytes) == [Array("scaled".utf8)], "round \(round)")
        }
    }

    @Test func theHalfSizePassReportsCornersInFrameCoordinates() throws {
        // A code read at full size is never looked at again; the half-size pass only runs on misses.
        let frame = Barcodes.centred(try ImageFile.read(path: Barcodes.qr("scaled", moduleSize: 6)), in: Size(width: 640, height: 480))
        let full = try Self.decoder(.zbar, []).symbols(in: frame, viewport: .standard)
        let withPass = try Self.decoder(.zbar, [.secondScale]).symbols(in: frame, viewport: .standard)
        #expect(full.map(\.corners) == withPass.map(\.corners))
        // Grainy (a dim scene at high gain) so that ZBar misses it at full size; 2x2 means smooth the grain.
        let grainy = Self.grain(frame, amplitude: 150)
        let plain = try Self.decoder(.zbar, []).symbols(in: grainy, viewport: .standard)
        let second = try Self.decoder(.zbar, [.secondScale]).symbols(in: grainy, viewport: .standard)
        #expect(plain.isEmpty, "the full-size pass misses it")
        let symbol = try #require(second.first, "the half-size pass reads it")
        #expect(String(decoding: symbol.bytes, as: UTF8.self) == "scaled")
        let xs = symbol.corners.points.map(\.x)
        let ys = symbol.corners.points.map(\.y)
        #expect(abs((xs.min()! + xs.max()!) / 2 - 320) < 12 && abs((ys.min()! + ys.max()!) / 2 - 240) < 12, "centred in frame coordinates: \(symbol.corners)")
    }

    /// Adds deterministic grain of +-amplitude/2 to every pixel.
    static func grain(_ frame: Frame, amplitude: Int) -> Frame {
        var state: UInt32 = 12345
        let pixels = (0..<frame.height).flatMap { y in
            (0..<frame.width).map { x -> UInt8 in
                state = state &* 1_103_515_245 &+ 12345
                let offset = Int((state >> 16) % UInt32(amplitude + 1)) - amplitude / 2
                return UInt8(clamping: Int(frame[x, y]) + offset)
            }
        }
        return Frame(width: frame.width, height: frame.height, pixels: pixels)
    }
}
