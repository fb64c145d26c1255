import Codes
import Decoding
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// Finding a swipe's motion blur in a frame, and undoing it.
@Suite struct MotionBlurTests {
    static let size = Size(width: 640, height: 480)

    /// A frame of `code` on its label, centred on a counter-grey scene, the whole blurred `length`
    /// pixels along `step`, with ±3 grey levels of noise.
    static func frame(_ code: Frame, length: Int, step: (dx: Int, dy: Int)) -> Frame {
        let clean = Barcodes.motionBlurred(Barcodes.centred(code, in: size, background: 150), length: length, step: step)
        var generator = SeededGenerator(seed: 7)
        let pixels = (0..<(size.width * size.height)).map {
            UInt8(clamping: Int(clean[$0 % size.width, $0 / size.width]) + Int.random(in: -3...3, using: &generator))
        }
        return Frame(width: size.width, height: size.height, pixels: pixels)
    }

    static let directions: [(MotionBlur.Direction, (dx: Int, dy: Int))] = [(.across, (1, 0)), (.down, (0, 1))]

    /// The direction and the length of the blur are found in the frame itself.
    @Test(arguments: [7, 10, 14])
    func theBlurIsFoundInTheFrame(length: Int) throws {
        let code = try ImageFile.read(path: Barcodes.qr("BLUR \(length)", moduleSize: 4))
        let viewport = Viewport.standard.pixels(in: Self.size)
        for (direction, step) in Self.directions {
            let blurs = MotionBlur.estimate(in: Self.frame(code, length: length, step: step), region: viewport)
            #expect(
                blurs.first?.direction == direction && blurs.contains(MotionBlur(direction: direction, length: length)), "\(direction), \(length) px: \(blurs)")
        }
        let still = MotionBlur.estimate(in: Self.frame(code, length: 1, step: (1, 0)), region: viewport)
        #expect(still.isEmpty, "a sharp code: \(still)")
    }

    /// Undone, a blur of 3 modules that neither library reads through is read. (The read
    /// pipeline's tests swipe EAN-13s too: GatedStreamTests.)
    @Test func aDeblurredCodeIsRead() throws {
        var config = DecoderConfig()
        config.symbologies = [.ean13, .qr]
        let decoder = try Decoders.make(config)
        let codes = [(try ImageFile.read(path: Barcodes.qr("DEBLUR", moduleSize: 4)), 12, Self.directions)]
        let viewport = Viewport.standard.pixels(in: Self.size)
        for (code, length, directions) in codes {
            for (_, step) in directions {
                let frame = Self.frame(code, length: length, step: step)
                let blurred = try decoder.decode(frame, in: viewport, secondLooks: true)
                let blurs = MotionBlur.estimate(in: frame, region: viewport)
                var read: [Symbol] = []
                for blur in blurs where read.isEmpty {
                    let sharp = blur.deblurred(frame, region: viewport)
                    read = try decoder.decode(sharp, in: PixelRect(x: 0, y: 0, width: sharp.width, height: sharp.height), secondLooks: false)
                }
                #expect(
                    blurred.isEmpty && read.count == 1,
                    "\(code.width) px wide, \(step): \(blurs), blurred \(blurred.map { String(decoding: $0.bytes, as: UTF8.self) }), deblurred \(read.map { String(decoding: $0.bytes, as: UTF8.self) })"
                )
            }
        }
    }

    /// Each line is undone on its own, whichever lines share the solver's lanes with it and
    /// however soon they stop: rows moved down the frame, among them flat ones that stop at
    /// once, come out moved and otherwise the same.
    @Test(arguments: [MotionBlur.Direction.across, .down])
    func eachLineIsUndoneOnItsOwn(direction: MotionBlur.Direction) {
        var generator = SeededGenerator(seed: 3)
        let (width, height, shift) = (53, 37, 5)
        let noise = (0..<(width * height)).map { $0 / width % 7 == 0 ? 90 : UInt8.random(in: 0...255, using: &generator) }
        // Along the columns, the same with the frame's rows and columns swapped.
        func frame(_ pixels: [UInt8]) -> Frame {
            direction == .across
                ? Frame(width: width, height: height, pixels: pixels)
                : Frame(width: height, height: width, pixels: (0..<(width * height)).map { pixels[($0 % height) * width + $0 / height] })
        }
        let moved = (0..<(width * height)).map { noise[($0 / width + shift) % height * width + $0 % width] }
        let blur = MotionBlur(direction: direction, length: 5)
        let (original, shifted) = (frame(noise), frame(moved))
        let deblurred = blur.deblurred(original, region: original.whole)
        let deblurredMoved = blur.deblurred(shifted, region: shifted.whole)
        let differing = (0..<(width * height)).count { index in
            let (x, y) = (index % width, index / width)
            let movedY = (y + shift) % height
            return direction == .across
                ? deblurredMoved[x, y] != deblurred[x, movedY] : deblurredMoved[y, x] != deblurred[movedY, x]
        }
        #expect(differing == 0)
    }

    /// A moving frame's blur is undone only where the scene moved far enough to make it: an
    /// exposure lasts a frame's interval at most, and the scene's motion is measured at a third of
    /// its speed at worst. A QR code smeared 12 px along the rows is read by the moving look when
    /// the scene moved 6 px along the rows from the frame before (or was not measured); not when it
    /// moved 3 px that way, nor 20 px down the columns, nor when it barely moved.
    @Test(arguments: [
        (travel: nil, read: true), (travel: MotionBlur.Travel(x: -6, y: 0), read: true), (travel: MotionBlur.Travel(x: 3, y: 1), read: false),
        (travel: MotionBlur.Travel(x: 0, y: 20), read: false), (travel: MotionBlur.Travel(x: 0.5, y: 0.5), read: false),
    ])
    func aBlurTheScenesMotionCouldNotMakeIsNotUndone(way: (travel: MotionBlur.Travel?, read: Bool)) throws {
        let decoder = try Decoders.make(DecoderConfig())
        let frame = Self.frame(try ImageFile.read(path: Barcodes.qr("TRAVEL", moduleSize: 4)), length: 12, step: (1, 0))
        let found = try decoder.symbols(in: frame, viewport: .standard, pass: .moving, travel: way.travel)
        #expect(found.map(\.bytes) == (way.read ? [Array("TRAVEL".utf8)] : []), "\(String(describing: way.travel))")
    }

    /// A blur about as long as a 2D code's modules dips where the modules do, so the estimate
    /// cannot tell it from a still code; where the scene moved, the moving look undoes the
    /// shortest blurs along its motion. A QR code of 2.5 px modules, turned, smeared 2.8 px along
    /// either diagonal or 4 px along the rows, is read then, and not when the motion is unknown.
    @Test(arguments: [
        (degrees: 36.0, step: (dx: 1, dy: 1), length: 2, travel: MotionBlur.Travel(x: 9, y: 9)),
        (degrees: 54.0, step: (dx: 1, dy: -1), length: 2, travel: MotionBlur.Travel(x: -9, y: 9)),
        (degrees: 78.0, step: (dx: 1, dy: 0), length: 4, travel: MotionBlur.Travel(x: -12, y: 0)),
    ])
    func aBlurAsShortAsTheModulesIsUndoneAlongTheMotion(way: (degrees: Double, step: (dx: Int, dy: Int), length: Int, travel: MotionBlur.Travel)) throws {
        let decoder = try Decoders.make(DecoderConfig())
        let code = Barcodes.turned(try ImageFile.read(path: Barcodes.qr("SHORT BLUR 1234", moduleSize: 5)), degrees: way.degrees, scale: 0.5)
        let frame = Self.frame(code, length: way.length, step: way.step)
        let unknown = try decoder.symbols(in: frame, viewport: .standard, pass: .moving, travel: nil)
        let known = try decoder.symbols(in: frame, viewport: .standard, pass: .moving, travel: way.travel)
        #expect(unknown.isEmpty && known.map(\.bytes) == [Array("SHORT BLUR 1234".utf8)], "\(way.degrees)°: \(unknown.count), \(known.count)")
    }

    /// The deblurring runs beside the moving look's other looks, on another core, and reads as it
    /// does in turn: a QR code smeared 12 px, which only it reads, is read; beside a Code 128
    /// standing on end, taller than the viewport, which the whole-frame look before it reads, the
    /// Code 128 alone is, as in turn, though the deblurring reads the QR code there too.
    @Test func theDeblurringBesideTheOtherLooksReadsAsInTurn() throws {
        let qr = Barcodes.motionBlurred(
            Barcodes.compose(
                size: Size(width: 200, height: 150), background: 150,
                placing: [(try ImageFile.read(path: Barcodes.qr("BESIDE", moduleSize: 4)), Point(x: 40, y: 17))]), length: 12)
        let text = "KS-BESIDE-01234"
        let tall = try ImageFile.read(path: Barcodes.zint(.code128, text, scale: 1, extra: ["--rotate=90", "--notext"]))
        try #require(tall.height > Viewport.standard.pixels(in: Self.size).height && tall.height < Self.size.height, "\(tall.height) px")
        let alone = Barcodes.compose(size: Self.size, background: 150, placing: [(qr, Point(x: 300, y: 165))])
        let both = Barcodes.compose(
            size: Self.size, background: 150, placing: [(qr, Point(x: 300, y: 165)), (tall, Point(x: 190 - tall.width / 2, y: 240 - tall.height / 2))])
        var undone = DecoderConfig()
        undone.preprocessing.remove(.deblur)
        let travel = MotionBlur.Travel(x: 12, y: 0)
        #expect(try Decoders.make(undone).symbols(in: alone, viewport: .standard, pass: .moving, travel: travel).isEmpty)
        let inTurn = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true, beside: false)
        let beside = try RoutedDecoder(config: DecoderConfig(), fallback: true, everything: true)
        for (frame, read) in [(alone, "BESIDE"), (both, text)] {
            for decoder in [inTurn, beside] {
                let found = try decoder.symbols(in: frame, viewport: .standard, pass: .moving, travel: travel)
                #expect(found.map(\.bytes) == [Array(read.utf8)], "\(read): \(found.map { String(decoding: $0.bytes, as: UTF8.self) })")
            }
        }
    }

    /// A linear code's bars dip on its reading axis only: a Code 128 carried slowly down the
    /// columns, whose bars' dip along the rows the motion could not have made, is given no
    /// shortest blurs to undo (a slow swipe's frames reach the deblurring often), where a QR code
    /// in the same motion is given one: each length tried costs a deconvolution and two looks.
    @Test func aSlowLinearSwipeIsNotGivenTheShortestBlurs() throws {
        let viewport = Viewport.standard.pixels(in: Self.size)
        let travel = MotionBlur.Travel(x: 0, y: 3)
        let linear = Self.frame(try ImageFile.read(path: Barcodes.zint(.code128, "SLOW SWIPE 42")), length: 1, step: (1, 0))
        let qr = Barcodes.turned(try ImageFile.read(path: Barcodes.qr("SLOW SWIPE 42", moduleSize: 5)), degrees: 20, scale: 0.5)
        let matrix = Self.frame(qr, length: 1, step: (1, 0))
        #expect(MotionBlur.undoable(in: linear, region: viewport, travel: travel).isEmpty)
        #expect(MotionBlur.undoable(in: matrix, region: viewport, travel: travel).map(\.length).count == 1)
    }
}
