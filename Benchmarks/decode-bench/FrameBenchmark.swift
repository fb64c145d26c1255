import Decoding
import Foundation
import ImageFiles
import Imaging
import ReadPipeline
import ZBarAnchor

/// Per-frame decode cost: ours (ZBarDecoder through the viewport API) against the bare C loop, on
/// the same frames, alternating in rounds because the machine is noisy; medians are compared.
struct FrameBenchmark {
    let iterations: Int
    let rounds = 7

    func run() throws {
        let scratch = NSTemporaryDirectory() + "decode-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let qr = try draw("qrencode", ["-s", "4", "-m", "4", "-o", "\(scratch)/qr.png", "https://example.com/kiosk"], "\(scratch)/qr.png")
        let ean = try draw("zint", ["-b", "13", "-d", "590123412345", "--scale=2", "-o", "\(scratch)/ean.png"], "\(scratch)/ean.png")
        let smallEAN = try draw("zint", ["-b", "13", "-d", "590123412345", "--scale=1", "-o", "\(scratch)/ean-small.png"], "\(scratch)/ean-small.png")

        print("per-frame decode: ours (ZBarDecoder, full-frame viewport) / bare C libzbar loop, same frames")
        print("median of \(rounds) alternating rounds x \(iterations) frames; found = codes found per frame (ours/bare)")
        print(
            "prep = ZBar with the default second looks on frames where it found nothing (\(Preprocessing.defaults.map(\.rawValue).sorted().joined(separator: ", ")))"
        )
        print("engine both (ZBar; zxing-cpp for PDF417/DataMatrix/Aztec, and QR and linear codes when ZBar found nothing), with the default second looks:")
        print("  both 1 frame = both libraries on each frame (a still image, as scan does), against prep")
        print("  both in turn = a stream, as the daemon runs it: the frames alternate between ZBar and zxing-cpp; aim: in turn / prep <= 1 at 640x480")
        print("  plain in turn = the same without second looks, against ours; zxing = zxing-cpp alone, every symbology it reads here, no second looks")
        print("  gate = the change gate on an unchanged frame (what an idle scanner pays per frame): default viewport, whole frame")
        print(
            "  moving = a moving scene's frame (default viewport): both first passes, the whole-frame look and the deblurring when they read nothing; against viewport"
        )
        print("  wide = the whole-frame look alone (ZBar, linear codes, every 4th row and column), as moving runs it; against viewport")
        print(
            "  turned = ZBar on the viewport turned 45° (the turned second look of a still image, inverted rescan included; moving runs it without); against viewport"
        )
        print("  turn = the turned look's resampling alone (Turn45), as a share of turned: the rest is ZBar's scan")
        print(
            pad("frame", 18) + pad("ours us", 10) + pad("bare us", 10) + pad("ratio", 8) + pad("found", 8) + pad("viewport us", 13)
                + pad("prep us", 10) + pad("prep/ours", 11) + pad("both 1 frame", 14) + pad("/prep", 7) + pad("both in turn", 14) + pad("/prep", 7)
                + pad("plain in turn", 15) + pad("/ours", 7) + pad("zxing us", 10) + pad("gate us", 9) + pad("gate full us", 14) + pad("moving us", 11)
                + pad("/viewport", 11) + pad("moving found", 14) + pad("wide us", 9) + pad("/viewport", 11) + pad("turned us", 11) + pad("/viewport", 11)
                + pad("turn us", 9) + "/turned")
        var zbarConfig = DecoderConfig()
        zbarConfig.engine = .zbar
        zbarConfig.symbologies = DecoderEngine.zbar.defaultSymbologies
        var plain = zbarConfig
        plain.preprocessing = []
        let decoder = try ZBarDecoder(config: plain)
        let prepared = try ZBarDecoder(config: zbarConfig)
        var all = DecoderConfig()
        all.engine = .both
        all.symbologies = DecoderEngine.both.defaultSymbologies
        let both = try Decoders.make(all)
        var zxingConfig = DecoderConfig()
        zxingConfig.engine = .zxing
        zxingConfig.symbologies = ZXingDecoder.supported
        zxingConfig.preprocessing = []
        let zxing = try Decoders.make(zxingConfig)
        // The moving pass's look at the whole frame, the one the default engine makes.
        guard let wide = try RoutedDecoder.wholeFrameLook(all) else { fatalError("the default symbologies have linear codes") }
        for size in [Size(width: 640, height: 480), Size(width: 1280, height: 720)] {
            let scenes: [(String, Frame)] = [
                ("QR", centred(qr, in: size)), ("EAN-13", centred(ean, in: size)),
                ("blank", Frame(width: size.width, height: size.height, pixels: [UInt8](repeating: 200, count: size.width * size.height))),
                ("noise", noise(size)),
                // An EAN-13 with 2 px modules swiped across: smeared 7 px (3.5 modules) and noisy, which
                // only the deblurring reads.
                ("swiped", smeared(centred(smallEAN, in: size), length: 7)),
            ]
            for (name, frame) in scenes {
                var ours: [Double] = []
                var bare: [Double] = []
                var viewport: [Double] = []
                var routed: [Double] = []
                var prep: [Double] = []
                var inTurn: [Double] = []
                var plainInTurn: [Double] = []
                var alone: [Double] = []
                var moving: [Double] = []
                var movingFound = 0
                var wideLooks: [Double] = []
                var turnedLooks: [Double] = []
                var turns: [Double] = []
                // Engine both's looks taking the frames in turn, as the read pipeline schedules them.
                var schedule = LookSchedule(passes: both.passes)
                var plainSchedule = LookSchedule(passes: both.passes)
                // The change gate on an unchanged scene: what an idle scanner pays per frame.
                var gates: [Double] = []
                var fullGates: [Double] = []
                var gate = ChangeGate(config: GatingConfig())
                var fullGate = ChangeGate(config: GatingConfig())
                gate.config.maxIntervalSeconds = .infinity
                fullGate.config.maxIntervalSeconds = .infinity
                let region = Viewport.standard.pixels(in: frame.size)
                let turn = Turn45(region: region)
                var turned = [UInt8](repeating: 0, count: turn.side * turn.side)
                let whole = Viewport.full.pixels(in: frame.size)
                var oursFound = 0
                var bareFound = 0
                for _ in 0..<rounds {
                    ours.append(try time { oursFound = try decoder.symbols(in: frame, viewport: .full).count })
                    var nanoseconds: UInt64 = 0
                    bareFound = Int(
                        zbar_anchor_scan(
                            frame.storage.base.assumingMemoryBound(to: UInt8.self), Int32(frame.width), Int32(frame.height), Int32(iterations), &nanoseconds))
                    bare.append(Double(nanoseconds) / Double(iterations) / 1000)
                    viewport.append(try time { _ = try decoder.symbols(in: frame, viewport: .standard) })
                    routed.append(try time { _ = try both.symbols(in: frame, viewport: .full) })
                    prep.append(try time { _ = try prepared.symbols(in: frame, viewport: .full) })
                    inTurn.append(
                        try time {
                            let look = schedule.look(secondLooks: true, changed: false)
                            let found = look.skipped ? [] : try both.symbols(in: frame, viewport: .full, pass: look.pass, narrowed: look.narrowed)
                            schedule.found(found, by: look)
                        })
                    alone.append(try time { _ = try zxing.symbols(in: frame, viewport: .full) })
                    gates.append(try time { _ = gate.decide(frame, viewport: region, at: 1) })
                    fullGates.append(try time { _ = fullGate.decide(frame, viewport: whole, at: 1) })
                    moving.append(try time { movingFound = try both.symbols(in: frame, viewport: .standard, pass: .moving).count })
                    wideLooks.append(try time { _ = try wide.symbols(in: frame, viewport: .full) })
                    turnedLooks.append(try time { _ = try prepared.turnedLook(frame, in: region) })
                    turns.append(try time { turned.withUnsafeMutableBufferPointer { turn.turn(frame, into: $0) } })
                    plainInTurn.append(
                        try time {
                            let look = plainSchedule.look(secondLooks: false, changed: false)
                            let found =
                                look.skipped ? [] : try both.symbols(in: frame, viewport: .full, secondLooks: false, pass: look.pass, narrowed: look.narrowed)
                            plainSchedule.found(found, by: look)
                        })
                }
                let (o, b) = (median(ours), median(bare))
                print(
                    pad("\(size.width)x\(size.height) \(name)", 18) + pad(String(format: "%.0f", o), 10) + pad(String(format: "%.0f", b), 10)
                        + pad(String(format: "%.3f", o / b), 8) + pad("\(oursFound)/\(bareFound)", 8) + pad(String(format: "%.0f", median(viewport)), 13)
                        + pad(String(format: "%.0f", median(prep)), 10) + pad(String(format: "%.2f", median(prep) / o), 11)
                        + pad(String(format: "%.0f", median(routed)), 14) + pad(String(format: "%.2f", median(routed) / median(prep)), 7)
                        + pad(String(format: "%.0f", median(inTurn)), 14) + pad(String(format: "%.2f", median(inTurn) / median(prep)), 7)
                        + pad(String(format: "%.0f", median(plainInTurn)), 15) + pad(String(format: "%.2f", median(plainInTurn) / o), 7)
                        + pad(String(format: "%.0f", median(alone)), 10) + pad(String(format: "%.1f", median(gates)), 9)
                        + pad(String(format: "%.1f", median(fullGates)), 14) + pad(String(format: "%.0f", median(moving)), 11)
                        + pad(String(format: "%.2f", median(moving) / median(viewport)), 11) + pad("\(movingFound)", 14)
                        + pad(String(format: "%.0f", median(wideLooks)), 9) + pad(String(format: "%.2f", median(wideLooks) / median(viewport)), 11)
                        + pad(String(format: "%.0f", median(turnedLooks)), 11) + pad(String(format: "%.2f", median(turnedLooks) / median(viewport)), 11)
                        + pad(String(format: "%.0f", median(turns)), 9) + String(format: "%.2f", median(turns) / median(turnedLooks)))
            }
        }
    }

    /// Microseconds per frame over `iterations` runs of `body`.
    private func time(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { try body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations) / 1000
    }

    private func draw(_ tool: String, _ arguments: [String], _ output: String) throws -> Frame {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return try ImageFile.read(path: output)
    }

    /// `frame` smeared `length` pixels along its rows, as a swipe's exposure does, with ±3 levels of noise.
    private func smeared(_ frame: Frame, length: Int) -> Frame {
        var generator = SystemRandomNumberGenerator()
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height)
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let sum = (0..<length).reduce(0) { $0 + Int(frame[min(max(x + $1 - length / 2, 0), frame.width - 1), y]) }
                pixels[y * frame.width + x] = UInt8(clamping: sum / length + Int.random(in: -3...3, using: &generator))
            }
        }
        return Frame(width: frame.width, height: frame.height, pixels: pixels)
    }

    private func centred(_ image: Frame, in size: Size) -> Frame {
        var pixels = [UInt8](repeating: 220, count: size.width * size.height)
        let left = (size.width - image.width) / 2
        let top = (size.height - image.height) / 2
        for y in 0..<image.height { for x in 0..<image.width { pixels[(top + y) * size.width + left + x] = image[x, y] } }
        return Frame(width: size.width, height: size.height, pixels: pixels)
    }

    private func noise(_ size: Size) -> Frame {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let pixels = (0..<(size.width * size.height)).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
        return Frame(width: size.width, height: size.height, pixels: pixels)
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0) }
