import Codes
import Decoding
import ImageFiles
import Imaging
import Platform
import ReadPipeline
import ScannerTestSupport
import Testing

/// The read pipeline in one process, as the capture loop runs it (the change gate, engine both's
/// look schedule, the decoders, the tracker and the pack merger), on drawn scenes with ±3 grey
/// levels of sensor noise and a scripted clock. No new code may be gated away, and a code held
/// still needs no decode to stay reported once.
@Suite struct GatedStreamTests {
    static let size = Size(width: 480, height: 360)

    /// Frames through the pipeline, at `fps`.
    final class Stream {
        var pipeline: ReadPipeline
        let fps: Double
        var frame = 0
        /// The frames that were decoded.
        var decoded: [Int] = []
        /// Every report: its frame and text.
        var reports: [(frame: Int, text: String)] = []

        init(
            fps: Double = 30, gating: GatingConfig = GatingConfig(), tracking: TrackingConfig = TrackingConfig(), sessions: Bool = false,
            engine: DecoderEngine = .both, preprocessing: Set<Preprocessing> = Preprocessing.defaults
        ) throws {
            var config = PipelineConfig()
            config.decoder.preprocessing = preprocessing
            config.sessions = sessions
            config.viewport = .full
            config.decoder.engine = engine
            config.decoder.symbologies = engine.defaultSymbologies
            config.gating = gating
            config.tracking = tracking
            pipeline = ReadPipeline(config: config)
            if let error = pipeline.decoderError { throw error }
            self.fps = fps
        }

        /// Takes the next frame of the camera, decoded while `scanning`.
        func feed(_ image: Frame, scanning: Bool = true) throws {
            frame += 1
            let outcome = pipeline.process(image, at: Instant(seconds: Double(frame) / fps), scanning: scanning)
            if let error = outcome.error { throw error }
            if outcome.symbols != nil { decoded.append(frame) }
            reports += outcome.reads.map { (frame, $0.shownText) }
        }
    }

    /// Four noise layers of ±3 grey levels, cycled frame after frame as a camera's noise.
    static let noise: [[Int8]] = (0..<4).map { layer in
        var generator = SeededGenerator(seed: UInt64(layer + 1))
        return (0..<(size.width * size.height)).map { _ in Int8.random(in: -3...3, using: &generator) }
    }

    /// The scene: background 200, each image pasted at its point, with noise layer `layer`.
    static func scene(_ images: [(Frame, Point)], layer: Int) -> Frame {
        let clean = Barcodes.compose(size: size, background: 200, placing: images)
        let noise = Self.noise[layer % Self.noise.count]
        var pixels = [UInt8](repeating: 0, count: size.width * size.height)
        for y in 0..<size.height {
            for x in 0..<size.width { pixels[y * size.width + x] = UInt8(clamping: Int(clean[x, y]) + Int(noise[y * size.width + x])) }
        }
        return Frame(width: size.width, height: size.height, pixels: pixels)
    }

    static func qr(_ text: String, module: Int) throws -> Frame {
        try ImageFile.read(path: Barcodes.qr(text, moduleSize: module))
    }

    static func centre(_ image: Frame) -> Point {
        Point(x: (size.width - image.width) / 2, y: (size.height - image.height) / 2)
    }

    /// A code replaced in place by another of the same version and size, each shown for two frames:
    /// every one is read, once, in the frame it appears.
    @Test(arguments: [3, 4, 8])
    func aCodeSwappedForAnotherOfTheSameSizeIsRead(module: Int) throws {
        let stream = try Stream()
        for frame in 0..<5 { try stream.feed(Self.scene([], layer: frame)) }
        var shown: [(frame: Int, text: String)] = []
        for index in 0..<12 {
            let text = "SWAP-\(1000 + index)"
            let code = try Self.qr(text, module: module)
            shown.append((stream.frame + 1, text))
            for _ in 0..<2 { try stream.feed(Self.scene([(code, Self.centre(code))], layer: stream.frame)) }
        }
        #expect(stream.reports.map(\.text) == shown.map(\.text))
        #expect(stream.reports.map(\.frame) == shown.map(\.frame), "read in the frame each appeared")
    }

    /// A code sliding in from the left edge, 10 px a frame, is read once it is whole, and once.
    @Test(arguments: [3, 4, 8])
    func aCodeSlidingInFromAnEdgeIsRead(module: Int) throws {
        let stream = try Stream()
        let code = try Self.qr("SLIDE-\(module)", module: module)
        let stop = Self.centre(code)
        for frame in 0..<5 { try stream.feed(Self.scene([], layer: frame)) }
        var x = -code.width
        var whole = 0
        while x < stop.x {
            x = min(x + 10, stop.x)
            try stream.feed(Self.scene([(code, Point(x: x, y: stop.y))], layer: stream.frame))
            if x >= 0 && whole == 0 { whole = stream.frame }
        }
        for _ in 0..<10 { try stream.feed(Self.scene([(code, stop)], layer: stream.frame)) }
        #expect(stream.reports.map(\.text) == ["SLIDE-\(module)"])
        #expect((stream.reports.first?.frame ?? .max) <= whole + 1, "read by the frame after the code was whole in view")
    }

    /// A small code appearing in one corner of an otherwise still scene changes one tile and hardly
    /// the viewport's mean: it is read in the frame it appears. The old single mean over the viewport
    /// (one tile) gates it away.
    @Test func aSmallCodeInOneCornerIsReadInTheFrameItAppears() throws {
        let code = try Self.qr("CORNER", module: 2)
        #expect(code.width <= Self.size.width / 5, "the code, with its quiet zone, about fits in one tile")
        var single = GatingConfig()
        single.tiles = 1
        for (gating, readsAtOnce) in [(GatingConfig(), true), (single, false)] {
            let stream = try Stream(gating: gating)
            for frame in 0..<10 { try stream.feed(Self.scene([], layer: frame)) }
            let appears = stream.frame + 1
            for _ in 0..<5 { try stream.feed(Self.scene([(code, Point(x: 4, y: 4))], layer: stream.frame)) }
            #expect((stream.reports.first?.frame == appears) == readsAtOnce, "tiles \(gating.tiles): \(stream.reports)")
        }
    }

    /// A code held still for 10 s is reported once, with no decode between the looks at its
    /// appearance and the end: the unchanged scene keeps it in view, and the timer is a rare safety net.
    @Test func aCodeHeldStillForTenSecondsIsReportedOnceWithoutADecode() throws {
        let stream = try Stream()
        let code = try Self.qr("HELD", module: 4)
        for frame in 0..<30 { try stream.feed(Self.scene([], layer: frame)) }
        let appears = stream.frame + 1
        let layers = (0..<4).map { Self.scene([(code, Self.centre(code))], layer: $0) }
        for frame in 0..<300 { try stream.feed(layers[frame % layers.count]) }
        #expect(stream.reports.map(\.text) == ["HELD"])
        #expect(stream.reports.first?.frame == appears)
        let later = stream.decoded.filter { $0 >= appears + stream.pipeline.looks }
        #expect(later.isEmpty, "decodes while the code was held: \(later)")
    }

    /// With `same_code_timeout`, a code held in view is reported again every so often, though the
    /// scene does not change: the timer decode comes at least that often.
    @Test func aHeldCodeIsReportedAgainAfterTheSameCodeTimeout() throws {
        var tracking = TrackingConfig()
        tracking.sameCodeTimeoutSeconds = 2
        let stream = try Stream(tracking: tracking)
        let code = try Self.qr("AGAIN", module: 4)
        let layers = (0..<4).map { Self.scene([(code, Self.centre(code))], layer: $0) }
        for frame in 0..<(30 * 7) { try stream.feed(layers[frame % layers.count]) }
        #expect(stream.reports.map(\.text) == Array(repeating: "AGAIN", count: 4), "\(stream.reports)")
    }

    /// A code only zxing-cpp reads (a DataMatrix) is read on the frame after it appears: ZBar takes
    /// a new scene's first frame, zxing-cpp the next, whether that frame changed or not.
    @Test func aCodeOnlyZXingReadsComesOneFrameLater() throws {
        let stream = try Stream()
        let code = try ImageFile.read(path: Barcodes.zint(.datamatrix, "ONE-LATER", scale: 4))
        for frame in 0..<10 { try stream.feed(Self.scene([], layer: frame)) }
        let appears = stream.frame + 1
        for _ in 0..<5 { try stream.feed(Self.scene([(code, Self.centre(code))], layer: stream.frame)) }
        #expect(stream.reports.map(\.text) == ["ONE-LATER"])
        #expect(stream.reports.first?.frame == appears + 1, "\(stream.reports)")
    }

    /// A swiped code seen blurred (a 40 px smear: 10 modules) and sharp on the next frame only is read
    /// from the sharp frame, once, whichever frame of the motion that is: the frames of a moving
    /// scene each get both libraries. Before, the looks took the frames in turn, and a DataMatrix
    /// whose one sharp frame fell to ZBar was never read.
    @Test(arguments: [Symbology.datamatrix, .ean13, .qr])
    func aCodeSeenBlurredThenSharpIsReadFromTheSharpFrame(symbology: Symbology) throws {
        let (code, _) = try Self.code(symbology, "SHARP")
        // 40 px: longer than any blur the deblurring undoes.
        let blurred = Barcodes.motionBlurred(code, length: 40)
        for lead in 0..<4 {
            let stream = try Stream()
            for frame in 0..<10 { try stream.feed(Self.scene([], layer: frame)) }
            // The swipe enters blurred, `lead` + 1 frames, stops sharp for one frame, and is gone.
            let y = (Self.size.height - code.height) / 2
            for step in 0...lead { try stream.feed(Self.scene([(blurred, Point(x: 10 + 30 * step, y: y))], layer: stream.frame)) }
            let sharp = stream.frame + 1
            try stream.feed(Self.scene([(code, Point(x: 40 + 30 * lead, y: y))], layer: stream.frame))
            for _ in 0..<3 { try stream.feed(Self.scene([], layer: stream.frame)) }
            #expect(stream.reports.map(\.frame) == [sharp], "\(symbology), \(lead + 1) blurred frames first: \(stream.reports)")
        }
    }

    /// A code crossing the frame in 6 frames, smeared by a 16th of its travel between frames (a
    /// 1/480 s exposure at 30 fps: 2 to 3.5 modules), is read once, at any phase of the looks:
    /// both libraries read each moving frame, and its blur is undone. Without the deblurring none
    /// of these swipes is read.
    @Test(arguments: [Symbology.ean13, .qr])
    func aCodeCrossingTheViewInSixFramesIsReadOnce(symbology: Symbology) throws {
        let (code, text) = try Self.code(symbology, "CROSSING")
        let travel = (Self.size.width + code.width) / 6
        for deblur in [true, false] {
            for lead in 0..<3 {
                let stream = try Stream(preprocessing: deblur ? Preprocessing.defaults : Preprocessing.defaults.subtracting([.deblur]))
                for frame in 0..<10 { try stream.feed(Self.scene([], layer: frame)) }
                // Another item leaves the view first, so the crossing starts at any phase of the looks.
                let other = Frame(width: 60, height: 60, pixels: [UInt8](repeating: 40, count: 3600))
                for step in 0..<lead { try stream.feed(Self.scene([(other, Point(x: 200 + 80 * step, y: 20))], layer: stream.frame)) }
                let y = (Self.size.height - code.height) / 2
                for step in 1...6 {
                    let scene = Self.scene([(code, Point(x: step * travel - code.width, y: y))], layer: stream.frame)
                    try stream.feed(Barcodes.motionBlurred(scene, length: travel / 16))
                }
                for _ in 0..<3 { try stream.feed(Self.scene([], layer: stream.frame)) }
                #expect(
                    stream.reports.map(\.text) == (deblur ? [text] : []), "\(symbology), deblur \(deblur), \(lead) frames of motion first: \(stream.reports)")
            }
        }
    }

    /// A QR code swiped past at 8 px a frame, sharp on one frame and smeared beyond reading for the
    /// 20 after (longer than the absence), then sharp again where the swipe took it: one read. The
    /// first sighting gives the code no motion of its own; the scene's, from where the frames
    /// changed, says where it was heading.
    @Test func aSwipeReadOnOneFrameAndAgainFurtherOnIsOneRead() throws {
        /// Frames of `code` swiped in from the left edge, `speed` px a frame, sharp on the steps in
        /// `sharp` and smeared by 40 px on the others, until it has left.
        func swipe(_ stream: Stream, _ code: Frame, speed: Int, sharp: Set<Int>) throws {
            let blurred = Barcodes.motionBlurred(code, length: 40)
            let y = (Self.size.height - code.height) / 2
            var step = 0
            while 10 + speed * step < Self.size.width {
                let image = sharp.contains(step) ? code : blurred
                try stream.feed(Self.scene([(image, Point(x: 10 + speed * step, y: y))], layer: stream.frame))
                step += 1
            }
        }
        let (qr, text) = try Self.code(.qr, "SWIPED-ONCE")
        let once = try Stream()
        for frame in 0..<10 { try once.feed(Self.scene([], layer: frame)) }
        try swipe(once, qr, speed: 8, sharp: [4, 24])
        for _ in 0..<3 { try once.feed(Self.scene([], layer: once.frame)) }
        #expect(once.reports.map(\.text) == [text], "\(once.reports)")
    }

    /// An EAN-13 of 1.7 px modules standing on end, swiped along its bars, is read while it moves.
    /// ZBar reads it on no frame, and zxing-cpp only along the columns (tryRotate), which a moving
    /// scene's frames did not get: in the motion benchmark, a pass the oracle read on all 72 frames
    /// was read by us on none.
    @Test func aSmallEANStandingOnEndIsReadWhileItMoves() throws {
        // Bars a third of the code's width tall, 1.7 px modules; smeared 8 px along the bars, then
        // a lens blur across them (1 2 1), then the sensor's noise.
        let ean = try ImageFile.read(path: Barcodes.zint(.ean13, "545956970217", scale: 1, extra: ["--notext", "--height=33"]))
        let code = Barcodes.turned(ean, degrees: 90, scale: 0.85)
        let y = Self.centre(code).y
        let frames = (0..<12).map { step in
            let smeared = Barcodes.motionBlurred(
                Barcodes.compose(size: Self.size, background: 200, placing: [(code, Point(x: 100 + 8 * step, y: y))]), length: 8)
            let lens = Barcodes.motionBlurred(Barcodes.motionBlurred(smeared, length: 2, step: (0, 1)), length: 2, step: (0, 1))
            return Self.scene([(lens, Point(x: 0, y: 0))], layer: step)
        }
        var zbar = DecoderConfig()
        zbar.engine = .zbar
        zbar.symbologies = DecoderEngine.zbar.defaultSymbologies
        let zbarAlone = try Decoders.make(zbar)
        #expect(try frames.allSatisfy { try zbarAlone.symbols(in: $0, viewport: .full).isEmpty }, "a frame ZBar reads")
        let stream = try Stream()
        for frame in 0..<10 { try stream.feed(Self.scene([], layer: frame)) }
        for frame in frames { try stream.feed(frame) }
        for _ in 0..<3 { try stream.feed(Self.scene([], layer: stream.frame)) }
        #expect(stream.reports.map(\.text) == ["5459569702170"])
    }

    /// A code of `symbology` holding `text` (EAN-13: a number of its own), about 100 px wide, and its text.
    static func code(_ symbology: Symbology, _ text: String) throws -> (Frame, String) {
        switch symbology {
        case .qr: (try qr(text, module: 3), text)
        case .ean13: (try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 1)), "5901234123457")
        default: (try ImageFile.read(path: Barcodes.zint(symbology, text, scale: 2)), text)
        }
    }

    /// A trigger session's first frame gets both libraries: a code only zxing-cpp reads, in view
    /// when the trigger is pressed, is read on that frame. A new scene in presentation mode still
    /// gives its first frame to ZBar alone.
    @Test func aTriggerSessionsFirstFrameGetsEveryLook() throws {
        let code = try ImageFile.read(path: Barcodes.zint(.datamatrix, "TRIGGERED", scale: 4))
        let scene = Self.scene([(code, Self.centre(code))], layer: 0)
        for sessions in [true, false] {
            let stream = try Stream(sessions: sessions)
            for _ in 0..<5 { try stream.feed(scene, scanning: false) }
            let pressed = stream.frame + 1
            for _ in 0..<3 { try stream.feed(scene) }
            #expect(stream.reports.map(\.text) == ["TRIGGERED"])
            #expect(stream.reports.first?.frame == (sessions ? pressed : pressed + 1), "sessions \(sessions): \(stream.reports)")
        }
    }

    /// An UPC-E put down where an EAN-13 was a moment before is taken for part of the EAN-13's bars
    /// while the EAN-13 is in view (the tracker's misread rule): the frames after are decoded,
    /// still as they are, so the UPC-E is read once the EAN-13's absence has passed, not at the
    /// gate's timer.
    @Test func aShortCodePutWhereALongOneWasIsReadOnceThatIsOutOfView() throws {
        let stream = try Stream()
        let ean = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 2))
        let upce = try ImageFile.read(path: Barcodes.zint(.upce, "0123456", scale: 2))
        for frame in 0..<5 { try stream.feed(Self.scene([(ean, Self.centre(ean))], layer: frame)) }
        let swapped = stream.frame + 1
        for frame in 0..<45 { try stream.feed(Self.scene([(upce, Self.centre(upce))], layer: frame)) }
        #expect(stream.reports.map(\.text) == ["5901234123457", "01234565"], "\(stream.reports)")
        let absence = Int(TrackingConfig().absenceSeconds * stream.fps)
        #expect((stream.reports.last?.frame ?? .max) <= swapped + absence + 3, "read at frame \(stream.reports.last?.frame ?? -1), swapped at \(swapped)")
    }

    /// A UPC-E with bars past its end guard, as the middle of a longer code has, is never reported
    /// by a stream, whichever engine reads it, though a still image of it reads (`QuietZone`); with
    /// its quiet zone clear it is reported once.
    @Test(arguments: [DecoderEngine.zbar, .both])
    func aShortCodeWithBarsInItsQuietZoneIsNotReported(engine: DecoderEngine) throws {
        let upce = try ImageFile.read(path: Barcodes.zint(.upce, "0123456", scale: 2))
        let clear = Barcodes.compose(size: Self.size, background: 200, placing: [(upce, Self.centre(upce))])
        let barred = Barcodes.barredPastEnd(clear, direction: 1)
        for (image, reports) in [(clear, ["01234565"]), (barred, [])] {
            let stream = try Stream(engine: engine)
            let still = try #require(stream.pipeline.stillSymbols(in: Self.scene([(image, Point(x: 0, y: 0))], layer: 0)))
            #expect(still.map { String(decoding: $0.bytes, as: UTF8.self) } == ["01234565"], "a still image reads it")
            for frame in 0..<10 { try stream.feed(Self.scene([(image, Point(x: 0, y: 0))], layer: frame)) }
            #expect(stream.reports.map(\.text) == reports, "\(engine): \(stream.reports)")
        }
    }

    /// A code held still through a second of gated frames stays in view: when another code appears
    /// beside it, only the new one is read, with one library as with two.
    @Test(arguments: [DecoderEngine.zbar, .both])
    func aHeldCodeIsNotReadAgainWhenAnotherAppears(engine: DecoderEngine) throws {
        let stream = try Stream(engine: engine)
        let held = try Self.qr("HELD-STILL", module: 3)
        let added = try Self.qr("NEW-BESIDE", module: 3)
        let left = Point(x: 20, y: (Self.size.height - held.height) / 2)
        let right = Point(x: Self.size.width - added.width - 20, y: left.y)
        for frame in 0..<40 { try stream.feed(Self.scene([(held, left)], layer: frame)) }
        for frame in 0..<5 { try stream.feed(Self.scene([(held, left), (added, right)], layer: frame)) }
        #expect(stream.reports.map(\.text) == ["HELD-STILL", "NEW-BESIDE"], "\(engine): \(stream.reports)")
    }

    /// What a console outlines: a code held still is in view on every frame, the gated ones and
    /// those of the look that does not read it, where it was last found; once it is gone, it is
    /// out of view within the tracker's absence, and nothing is in view while not scanning.
    @Test func aHeldCodeIsInViewOnEveryFrameUntilItGoes() throws {
        let stream = try Stream()
        let code = try Self.qr("IN-VIEW", module: 4)
        let layers = (0..<4).map { Self.scene([(code, Self.centre(code))], layer: $0) }
        var missing: [Int] = []
        for frame in 0..<60 {
            try stream.feed(layers[frame % layers.count])
            let texts = stream.pipeline.inView().map { String(decoding: $0.bytes, as: UTF8.self) }
            if texts != ["IN-VIEW"] { missing.append(stream.frame) }
        }
        #expect(missing.isEmpty, "frames without the held code in view: \(missing)")
        let corners = try #require(stream.pipeline.inView().first?.corners.points)
        let placed = Self.centre(code)
        let (xs, ys) = ((placed.x - 2)...(placed.x + code.width + 2), (placed.y - 2)...(placed.y + code.height + 2))
        #expect(corners.allSatisfy { xs.contains($0.x) && ys.contains($0.y) }, "where it was found: \(corners)")
        for frame in 0..<30 { try stream.feed(Self.scene([], layer: frame)) }
        #expect(stream.pipeline.inView().isEmpty)
        try stream.feed(layers[0])
        try stream.feed(layers[1], scanning: false)
        #expect(stream.pipeline.inView().isEmpty, "not scanning: nothing in view")
    }
}
