import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// The change gate in the running daemon, on a recording (its frames play in order, none skipped).
@Suite struct GateTests {
    /// A new code in one tile of an otherwise still, slightly noisy scene is read in the frame it
    /// appears, with the default config (the centred square viewport, the engine both): here a small
    /// code that replaces another of the same version in one corner. The gate's one mean over the
    /// viewport before 2026-11-24 moved by less than its threshold for it, and the timer read it
    /// half a second later.
    @Test func aNewCodeInOneTileIsReadInTheFrameItAppears() throws {
        let size = Size(width: 640, height: 480)
        let viewport = Viewport.standard.pixels(in: size)
        let first = try ImageFile.read(path: Barcodes.qr("TILE A01", moduleSize: 2))
        let second = try ImageFile.read(path: Barcodes.qr("TILE B02", moduleSize: 2))
        #expect(first.width == second.width && first.width <= viewport.width / 6, "one version, about one tile")
        let directory = try TemporaryDirectory.shared.directory("gate-recording")
        var generator = SeededGenerator(seed: 22)
        var entries: [String] = []
        let appears = 21
        for index in 1...(appears + 19) {
            let code = index >= appears ? second : first
            let clean = Barcodes.compose(size: size, background: 250, placing: [(code, Point(x: viewport.x + 4, y: viewport.y + 4))])
            var pixels = [UInt8](repeating: 0, count: size.width * size.height)
            for y in 0..<size.height {
                for x in 0..<size.width { pixels[y * size.width + x] = UInt8(clamping: Int(clean[x, y]) + Int.random(in: -1...1, using: &generator)) }
            }
            let name = String(format: "%03d.pgm", index)
            try Fixtures.pgm(Frame(width: size.width, height: size.height, pixels: pixels)).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
            entries.append("{\"file\": \"\(name)\", \"timestamp_ns\": \(UInt64(index) * 33_333_333)}")
        }
        try Data("{\"frames\": [\(entries.joined(separator: ", "))]}".utf8).write(to: URL(fileURLWithPath: "\(directory)/index.json"))
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(directory)"))
        let client = try daemon.connect()
        #expect(client.waitForScan("TILE B02", timeout: 60).match != nil, "\(daemon.log.suffix(800))")
        // The daemon's debug log names the frame of each read; the recording numbers its frames from 1.
        let frames = daemon.log.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "] read "), let from = line.range(of: " from frame ", range: range.upperBound..<line.endIndex) else { return nil }
            return Int(line[from.upperBound...].prefix { $0.isNumber })
        }
        #expect(frames.prefix(2) == [1, appears], "\(daemon.log.suffix(800))")
        #expect(daemon.stop() == 0)
    }
}
