import Decoding
import Foundation
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

    /// An EAN-13 with bars 0.3 of its width tall, held slanted 45° or 135°, crosses no row or column
    /// of the frame whole: ZBar reads it only on the viewport turned 45°, and reports it where it
    /// lies in the frame. It is a second look, so a decode without second looks does not read it.
    @Test(arguments: [45.0, 135.0])
    func aSlantedLinearCodeIsReadOnTheTurnedViewport(degrees: Double) throws {
        let ean = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 1, extra: ["--height=30"]))
        let frame = Barcodes.centred(Barcodes.turned(ean, degrees: degrees, scale: 1), in: Size(width: 640, height: 480))
        let unturned = Preprocessing.defaults.subtracting([.turned])
        #expect(try Self.decoder(.zbar, unturned).symbols(in: frame, viewport: .standard).isEmpty, "no row or column reads it")
        let decoder = try Self.decoder(.zbar, unturned.union([.turned]))
        #expect(try decoder.symbols(in: frame, viewport: .standard, secondLooks: false).isEmpty)
        let symbol = try #require(try decoder.symbols(in: frame, viewport: .standard).first, "the turned pass reads it")
        #expect(String(decoding: symbol.bytes, as: UTF8.self) == "5901234123457")
        let centre = symbol.corners.centre
        #expect(abs(centre.x - 320) < 12 && abs(centre.y - 240) < 12, "centred in frame coordinates: \(symbol.corners)")
        // Its corners lie along the code: the longer side runs at `degrees` (either way along it).
        let points = symbol.corners.points
        let sides = [(points[1].x - points[0].x, points[1].y - points[0].y), (points[2].x - points[1].x, points[2].y - points[1].y)]
        let long = try #require(sides.max { $0.0 * $0.0 + $0.1 * $0.1 < $1.0 * $1.0 + $1.1 * $1.1 })
        let angle = (atan2(Double(long.1), Double(long.0)) * 180 / .pi + 360).truncatingRemainder(dividingBy: 180)
        #expect(abs(angle - degrees) < 10, "the code's length at \(angle)°: \(symbol.corners)")
        #expect(symbol.orientation == .unknown)
    }

    /// A small UPC-A slanted 36°, smeared 6 px across its bars: turned and resampled, ZBar reads it
    /// as the EAN-13 `5488428161711` (three 9s of the left half as 8s, the check digit holding),
    /// as a motion benchmark pass did on most of its frames. Its profile across the bars does not
    /// read that, so the turned look reports nothing; the code less smeared and slanted 38° is
    /// read, and its profile agrees.
    @Test func aTurnedReadOfASmallEANStandsOnlyWhenItsProfileAgrees() throws {
        let upca = try ImageFile.read(path: Barcodes.zint(.upca, "499429161711", scale: 1, extra: ["--notext", "--height=20"]))
        func frame(degrees: Double, scale: Double, smear: Int) -> Frame {
            let turned = Barcodes.turned(upca, degrees: degrees, scale: scale)
            return Barcodes.motionBlurred(Barcodes.centred(turned, in: Size(width: 640, height: 480), background: 150), length: smear, step: (0, 1))
        }
        let decoder = try Self.decoder(.zbar, [.turned])
        let smeared = try decoder.symbols(in: frame(degrees: 36, scale: 1.15, smear: 6), viewport: .standard)
        #expect(smeared.allSatisfy { $0.gtin13 == Array("0499429161711".utf8) }, "\(smeared.map { String(decoding: $0.bytes, as: UTF8.self) })")
        let sharper = try decoder.symbols(in: frame(degrees: 38, scale: 1, smear: 3), viewport: .standard)
        #expect(sharper.map(\.bytes) == [Array("499429161711".utf8)])
    }

    /// A camera out of focus: `passes` box blurs of `radius` along rows and columns.
    static func defocused(_ frame: Frame, radius: Int, passes: Int) -> Frame {
        (0..<passes).reduce(frame) { image, _ in
            Barcodes.motionBlurred(Barcodes.motionBlurred(image, length: 2 * radius + 1), length: 2 * radius + 1, step: (0, 1))
        }
    }

    /// A Data Matrix of 2.4 px modules, slightly out of focus, is read by zxing-cpp only on the
    /// viewport scaled up twice, the still image's `upscaled` look, and is reported where it lies.
    /// A stream's frames, a trigger session's first among them, do not get that look.
    @Test func aSmallDataMatrixIsReadOnTheScaledUpViewport() throws {
        let matrix = try ImageFile.read(path: Barcodes.zint(.datamatrix, "kiosk scanner 2026", scale: 2))
        let frame = Self.defocused(Barcodes.centred(Barcodes.turned(matrix, degrees: 0, scale: 0.6), in: Size(width: 640, height: 480)), radius: 1, passes: 1)
        #expect(try Self.decoder(.both, Preprocessing.defaults.subtracting([.upscaled])).symbols(in: frame, viewport: .standard).isEmpty)
        let decoder = try Self.decoder(.both, Preprocessing.defaults)
        #expect(try decoder.symbols(in: frame, viewport: .standard, secondLooks: false).isEmpty, "a second look")
        #expect(try decoder.symbols(in: frame, viewport: .standard, pass: .whole).isEmpty, "a still image's: a trigger's first frame has none")
        let symbol = try #require(try decoder.symbols(in: frame, viewport: .standard).first, "the upscaled look reads it")
        #expect(String(decoding: symbol.bytes, as: UTF8.self) == "kiosk scanner 2026")
        let centre = symbol.corners.centre
        #expect(abs(centre.x - 320) < 8 && abs(centre.y - 240) < 8, "centred in frame coordinates: \(symbol.corners)")
    }

    /// An EAN-13 of 4 px modules out of focus (about a Gaussian of σ 2.5 px) is read by neither
    /// library until the still image's `sharpened` look steepens its edges.
    @Test func aDefocusedEANIsReadSharpened() throws {
        let ean = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 2))
        let frame = Self.defocused(Barcodes.centred(ean, in: Size(width: 640, height: 480)), radius: 2, passes: 3)
        #expect(try Self.decoder(.both, Preprocessing.defaults.subtracting([.sharpened])).symbols(in: frame, viewport: .full).isEmpty)
        let found = try Self.decoder(.both, Preprocessing.defaults).symbols(in: frame, viewport: .full)
        #expect(found.map { String(decoding: $0.bytes, as: UTF8.self) } == ["5901234123457"])
        let centre = try #require(found.first).corners.centre
        #expect(abs(centre.x - 320) < 12 && abs(centre.y - 240) < 40, "centred in frame coordinates: \(found[0].corners)")
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
