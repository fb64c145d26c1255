import Codes
import Decoding
import ImageFiles
import Imaging
import ReadPipeline
import ScannerTestSupport
import Testing

/// How ZBar and zxing-cpp share a stream's frames: the gate's decisions through the look schedule,
/// and the schedule's looks through engine both's decoder.
@Suite struct LookScheduleTests {
    /// A frame's look: its place in the schedule, and whether its frame changed.
    struct Decided: Equatable {
        var index: Int
        var secondLooks: Bool
        var changed: Bool
        var pass = DecoderPass.zbar
    }

    /// With engine both's three looks, a new scene gets looks 0, 1 and 2 on its first three frames,
    /// frames that keep changing get both libraries' first passes from the second one on, and plain
    /// timer decodes take the looks in turn.
    @Test func everySceneGetsEveryLookAndAMovingSceneBothLibraries() {
        var gate = ChangeGateTests.gate()
        var schedule = LookSchedule(passes: [.zbar, .zxingFirst, .zxingSecond])
        var decided: [Int: Decided] = [:]
        // Half a second of an empty scene, a card held for a third of a second, a card that comes
        // and goes on every frame, and the card held again.
        for frame in 0..<60 {
            let scene =
                frame < 15
                ? ChangeGateTests.scene() : frame < 25 || frame >= 40 ? ChangeGateTests.scene(square: true) : ChangeGateTests.scene(square: frame % 2 == 0)
            guard
                case .decode(let secondLooks, let changed) = gate.decide(
                    scene, viewport: ChangeGateTests.region, at: Double(frame) / 30, owed: schedule.owesLook)
            else { continue }
            let look = schedule.look(secondLooks: secondLooks, changed: changed)
            decided[frame] = Decided(index: look.index, secondLooks: secondLooks, changed: changed, pass: look.pass)
        }
        #expect(decided[0] == Decided(index: 0, secondLooks: true, changed: true))
        #expect(decided[1] == Decided(index: 1, secondLooks: true, changed: false, pass: .zxingFirst))
        #expect(decided[2] == Decided(index: 2, secondLooks: true, changed: false, pass: .zxingSecond))
        #expect(decided[3] == nil)
        #expect(decided[15] == Decided(index: 0, secondLooks: true, changed: true))
        #expect(decided[16] == Decided(index: 1, secondLooks: true, changed: false, pass: .zxingFirst))
        #expect(decided[17] == Decided(index: 2, secondLooks: true, changed: false, pass: .zxingSecond))
        #expect(decided[18] == nil)
        #expect(decided[25] == Decided(index: 0, secondLooks: true, changed: true), "a scene's first changed frame is ZBar's")
        let changing = (26...40).map { decided[$0] }
        #expect(changing == (26...40).map { _ in Decided(index: 0, secondLooks: true, changed: true, pass: .moving) }, "\(changing)")
        // Held still after moving: ZBar with its second looks, then zxing-cpp's; its first pass read the last moving frame.
        #expect(decided[41] == Decided(index: 0, secondLooks: true, changed: false))
        #expect(decided[42] == Decided(index: 2, secondLooks: true, changed: false, pass: .zxingSecond))
        #expect(decided[43] == nil)
        let plain = decided.sorted { $0.key < $1.key }.compactMap { $0.value.secondLooks ? nil : $0.value.index }
        #expect(plain.count >= 2, "\(decided)")
        #expect(zip(plain, plain.dropFirst()).allSatisfy { $0 != $1 }, "\(plain)")
    }

    /// Engine both's looks on frames of one still scene each, as the schedule gives them.
    final class Looks {
        let decoder: any Decoder
        var schedule: LookSchedule
        /// The pass of the latest look.
        var pass = DecoderPass.whole

        init() throws {
            var config = DecoderConfig()
            config.engine = .both
            config.symbologies = DecoderEngine.both.defaultSymbologies
            decoder = try Decoders.make(config)
            schedule = LookSchedule(passes: decoder.passes)
        }

        /// The next look's codes in `frame`, a frame that did not change from the last (a held scene).
        func next(_ frame: Frame, secondLooks: Bool = true) throws -> [Symbology] {
            let look = schedule.look(secondLooks: secondLooks, changed: false)
            pass = look.pass
            let found = look.skipped ? [] : try decoder.symbols(in: frame, viewport: .full, secondLooks: secondLooks, pass: look.pass, narrowed: look.narrowed)
            schedule.found(found, by: look)
            return found.map(\.symbology)
        }
    }

    static func config(_ engine: DecoderEngine, _ symbologies: Set<Symbology>) -> DecoderConfig {
        var config = DecoderConfig()
        config.engine = engine
        config.symbologies = symbologies
        return config
    }

    /// In a stream, engine both gives each frame to one look: look 0 is ZBar, look 1 zxing-cpp's first
    /// pass, whose QR and linear codes count only when ZBar's latest look found nothing, and look 2
    /// zxing-cpp's second looks. A still image gets every look, every read counting, and a code both
    /// libraries read is reported once.
    @Test func inAStreamTheLibrariesTakeFramesInTurn() throws {
        let size = Size(width: 640, height: 480)
        let frame = { (path: String) throws -> Frame in Barcodes.centred(try ImageFile.read(path: path), in: size) }
        let ean = try frame(Barcodes.zint(.ean13, "590123412345"))
        let dm = try frame(Barcodes.zint(.datamatrix, "turn by turn", scale: 4))
        let qr = try frame(Barcodes.qr("QR for both"))
        let looks = try Looks()
        #expect(looks.decoder.passes == [.zbar, .zxingFirst, .zxingSecond])
        let blank = Barcodes.compose(size: size, placing: [])
        #expect(try [looks.next(ean), looks.next(ean), looks.next(ean)] == [[.ean13], [], []])
        #expect(try [looks.next(dm), looks.next(dm), looks.next(dm)] == [[], [.datamatrix], []])
        #expect(try looks.next(qr) == [.qr])
        #expect(try looks.next(qr) == [], "ZBar's latest look read it")
        #expect(try looks.next(qr) == [])
        #expect(try looks.next(blank) == [])
        #expect(looks.pass == .zbar)
        #expect(try looks.next(qr) == [.qr], "ZBar's latest look found nothing")
        // A still image: every look on the one frame, each code once.
        #expect(try looks.decoder.symbols(in: dm, viewport: .full).map(\.symbology) == [.datamatrix])
        #expect(try looks.decoder.symbols(in: ean, viewport: .full).map(\.symbology) == [.ean13])
        #expect(try looks.decoder.symbols(in: qr, viewport: .full).map(\.symbology) == [.qr])
        #expect(try Decoders.make(Self.config(.zbar, [.ean13, .qr])).passes == [.whole])
        #expect(try Decoders.make(Self.config(.zxing, [.datamatrix, .qr])).passes == [.whole])
        #expect(try Decoders.make(Self.config(.both, [.datamatrix])).passes == [.zxingFirst, .zxingSecond])
    }

    /// zxing-cpp's second looks (tryRotate, tryInvert, the other binarizer) get a frame of their own
    /// in a stream, and only when the scene's earlier looks found nothing: a light-on-dark DataMatrix
    /// is read by look 2 alone, and beside an EAN-13 that ZBar read, look 2 costs nothing.
    @Test func zxingSecondLooksTakeAFrameOfTheirOwn() throws {
        let size = Size(width: 640, height: 480)
        var code = try ImageFile.read(path: Barcodes.zint(.datamatrix, "light on dark", scale: 4))
        code = Frame(width: code.width, height: code.height, pixels: (0..<code.height).flatMap { y in (0..<code.width).map { 255 - code[$0, y] } })
        let ean = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345"))
        let alone = Barcodes.centred(code, in: size, background: 30)
        let beside = Barcodes.compose(size: size, placing: [(code, Point(x: 20, y: 10)), (ean, Point(x: 150, y: 240))])
        let looks = try Looks()
        #expect(try [looks.next(alone), looks.next(alone), looks.next(alone)] == [[], [], [.datamatrix]])
        // Plain timer decodes take the looks in turn from look 1, without second looks.
        #expect(try looks.next(alone, secondLooks: false) == [])
        #expect(try looks.next(alone, secondLooks: false) == [], "a plain decode takes no second looks")
        #expect(looks.pass == .zxingSecond)
        #expect(try looks.next(alone, secondLooks: false) == [])
        let again = try Looks()
        #expect(try [again.next(beside), again.next(beside)] == [[.ean13], []])
        #expect(try again.next(beside) == [], "ZBar's look at this scene found the EAN-13")
        #expect(again.pass == .zxingSecond)
        // A still image gets every pass.
        #expect(try again.decoder.symbols(in: beside, viewport: .full).map(\.symbology).sorted { $0.rawValue < $1.rawValue } == [.datamatrix, .ean13])
    }
}
