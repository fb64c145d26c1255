import Codes
import Decoding
import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// A decoder that fails stays contained: 3,000 seeded fuzzed frames (noise, stripes, random
/// rectangles, truncated symbols) through each engine in the running daemon. The daemon must decode
/// them all without crashing or stalling, still answer, and stop cleanly. Frames are 160x120 so that
/// the replay source, which holds every frame in memory, stays small. The three engines' daemons
/// run side by side: one after another, they were the longest chain of the whole suite.
@Suite struct FuzzedFrameTests {
    static let count = 3000
    static let size = Size(width: 160, height: 120)

    /// The fuzzed frames, written once for every engine.
    static let directory: Result<String, any Error> = Result {
        let directory = try TemporaryDirectory.shared.directory("fuzzed")
        var random = SeededGenerator(seed: 17)
        let symbols = try [
            Barcodes.zint(.datamatrix, "fuzz DM", scale: 1), Barcodes.zint(.aztec, "fuzz Aztec", scale: 1),
            Barcodes.zint(.pdf417, "fuzz PDF", scale: 1, extra: ["--cols=2"]), Barcodes.zint(.code128, "FUZZ128", scale: 1),
            Barcodes.zint(.ean13, "590123412345", scale: 1), Barcodes.zint(.databar, "0950600013435", scale: 1),
            Barcodes.zint(.microqr, "MQ", scale: 2), Barcodes.zint(.rmqr, "rMQR", scale: 2), Barcodes.qr("fuzz QR", moduleSize: 2),
        ].map { try ImageFile.read(path: $0) }
        for index in 0..<count {
            let frame = fuzzed(kind: index % 4, symbols: symbols, random: &random)
            try Fixtures.pgm(frame).write(to: URL(fileURLWithPath: String(format: "%@/%05d.pgm", directory, index)))
        }
        return directory
    }

    /// One frame: 0 noise, 1 stripes (bars of random widths, either axis), 2 random rectangles,
    /// 3 a real symbol cut short and partly overwritten.
    static func fuzzed(kind: Int, symbols: [Frame], random: inout SeededGenerator) -> Frame {
        let width = size.width
        let height = size.height
        var pixels = [UInt8](repeating: UInt8.random(in: 0...255, using: &random), count: width * height)
        switch kind {
        case 0:
            for index in pixels.indices { pixels[index] = UInt8.random(in: 0...255, using: &random) }
        case 1:
            let vertical = Bool.random(using: &random)
            var position = 0
            var dark = false
            while position < (vertical ? width : height) {
                let run = Int.random(in: 1...6, using: &random)
                for offset in position..<min(position + run, vertical ? width : height) {
                    for along in 0..<(vertical ? height : width) {
                        pixels[vertical ? along * width + offset : offset * width + along] = dark ? 20 : 235
                    }
                }
                position += run
                dark.toggle()
            }
        case 2:
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let x = Int.random(in: 0..<width, using: &random)
                let y = Int.random(in: 0..<height, using: &random)
                let w = Int.random(in: 1...60, using: &random)
                let h = Int.random(in: 1...60, using: &random)
                let shade = UInt8.random(in: 0...255, using: &random)
                for row in y..<min(y + h, height) { for column in x..<min(x + w, width) { pixels[row * width + column] = shade } }
            }
        default:
            let symbol = symbols[Int.random(in: 0..<symbols.count, using: &random)]
            // A part of the symbol: cut at a random row and column, placed anywhere (partly outside).
            let keptWidth = Int.random(in: 1...symbol.width, using: &random)
            let keptHeight = Int.random(in: 1...symbol.height, using: &random)
            let left = Int.random(in: -keptWidth / 2...width - 1, using: &random)
            let top = Int.random(in: -keptHeight / 2...height - 1, using: &random)
            for row in 0..<keptHeight where top + row >= 0 && top + row < height {
                for column in 0..<keptWidth where left + column >= 0 && left + column < width {
                    pixels[(top + row) * width + left + column] = symbol[column, row]
                }
            }
            // Flip a few pixels inside it.
            for _ in 0..<Int.random(in: 0...200, using: &random) {
                pixels[Int.random(in: 0..<pixels.count, using: &random)] ^= 0xFF
            }
        }
        return Frame(width: width, height: height, pixels: pixels)
    }

    @Test(arguments: [DecoderEngine.zbar, .zxing, .both])
    func fuzzedFramesNeitherCrashNorStallTheDaemon(engine: DecoderEngine) throws {
        let directory = try Self.directory.get()
        let symbologies = engine.defaultSymbologies.map(\.rawValue).sorted().joined(separator: ", ")
        let daemon = try DaemonProcess(
            config: Fixtures.config(
                device: "replay:\(directory)", camera: "  fps: 240",
                extra: "viewport:\n  rect: [0, 0, 1, 1]\ndecoder:\n  engine: \(engine.rawValue)\n  symbologies: [\(symbologies)]\n"))
        let client = try daemon.connect(timeout: 60)
        // Loading 3,000 images takes the replay source a while.
        #expect(client.waitForCamera("streaming", timeout: 300) != nil, "\(engine): \(daemon.log.suffix(500))")
        // Every frame decoded at least once over the loop: the count of decoded frames keeps rising
        // until it passes the number of frames. A stalled decoder stops it rising.
        var decoded = 0
        var unchanged = 0
        while decoded < Self.count * 2 && unchanged < 40 {
            let reply = try Tool.capture(Tool.scannerBinary, ["status", "--json", "--socket", daemon.socketPath])
            let status = try JSONSerialization.jsonObject(with: Data(reply.stdout.utf8)) as? [String: Any]
            let now = (status?["counters"] as? [String: Any])?["frames_decoded"] as? Int ?? decoded
            unchanged = now == decoded ? unchanged + 1 : 0
            decoded = now
            usleep(250_000)
        }
        #expect(decoded >= Self.count * 2, "\(engine): \(decoded) frames decoded, then no progress; \(daemon.log.suffix(800))")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0)
    }
}
