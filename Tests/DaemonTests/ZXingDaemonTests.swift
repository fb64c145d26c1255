import Decoding
import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// The daemon with `decoder.engine: both` and `zxing`: DataMatrix, Aztec, PDF417, DataBar Limited,
/// Micro QR and rMQR through zxing-cpp, and the inputs that aborted zxing-cpp 1.4.0 (stacked DataBar,
/// a large Code 128). Each code is in view for two frames, as a presented code is: with `both`, the
/// two libraries take the frames of a stream in turn.
@Suite struct ZXingDaemonTests {
    @Test(arguments: [
        (DecoderEngine.both, "[ean13, code128, qr, databar, datamatrix, aztec, pdf417, databar-ltd, microqr, rmqr]"),
        (.zxing, "[ean13, code128, qr, databar, datamatrix, aztec, pdf417, databar-ltd, microqr, rmqr]"),
    ])
    func readsTwoDimensionalAndNewCodesAndTheInputsThatAbortedZXing14(engine: DecoderEngine, symbologies: String) throws {
        let directory = try TemporaryDirectory.shared.directory("zxing-replay")
        var index = 0
        /// Ten frames of `frame` as it is: each code takes the place of the one before, and a linear
        /// code is read once the one before has not been found for `tracking.misread` (0.2 s).
        func hold(_ frame: Frame) throws {
            for _ in 0..<10 {
                index += 1
                try Fixtures.pgm(frame).write(to: URL(fileURLWithPath: String(format: "%@/%03d.pgm", directory, index)))
            }
        }
        /// `image` centred in 640x480, held.
        func write(_ image: Frame) throws {
            try hold(Barcodes.centred(image, in: Size(width: 640, height: 480)))
        }
        // Inputs that aborted zxing-cpp 1.4.0 when it read linear codes: stacked DataBar, and a large
        // Code 128 that the downscaled pass read again (the frame is made large enough for it).
        for type in [79, 80] {
            let path = try TemporaryDirectory.shared.file("stacked-\(type)-\(UUID().uuidString.prefix(4)).png")
            try Tool.run("zint", ["-b", String(type), "-d", "0950600013435", "--quietzones", "-o", path])
            try write(ImageFile.read(path: path))
        }
        let large = try TemporaryDirectory.shared.file("large-code128-\(UUID().uuidString.prefix(4)).png")
        try Tool.run("zint", ["-b", "20", "-d", "123456", "--scale=4", "--height=60", "--quietzones", "-o", large])
        try hold(ImageFile.read(path: large))
        try write(ImageFile.read(path: Barcodes.zint(.datamatrix, "DM in the daemon", scale: 4)))
        try write(ImageFile.read(path: Barcodes.zint(.aztec, "Aztec in the daemon", scale: 4)))
        try write(ImageFile.read(path: Barcodes.zint(.pdf417, "PDF417 in the daemon", scale: 1, extra: ["--cols=2"])))
        try write(ImageFile.read(path: Barcodes.zint(.databarLimited, "1234567890128", scale: 3)))
        try write(ImageFile.read(path: Barcodes.zint(.microqr, "MQR1", scale: 4)))
        try write(ImageFile.read(path: Barcodes.zint(.rmqr, "rMQR in the daemon", scale: 4)))
        let daemon = try DaemonProcess(
            config: Fixtures.config(
                device: "replay:\(directory)",
                extra: "viewport:\n  rect: [0, 0, 1, 1]\ntracking:\n  absence: 0.05\ndecoder:\n  engine: \(engine.rawValue)\n  symbologies: \(symbologies)\n"))
        let client = try daemon.connect()
        // The replay loads its 90 frames before it streams (30 s once, in a debug build on a loaded
        // machine, before raw PGMs were copied whole), so the reads' own waits start once it streams.
        #expect(client.waitForCamera("streaming", timeout: 120) != nil, "\(daemon.log.suffix(500))")
        for text in ["DM in the daemon", "Aztec in the daemon", "PDF417 in the daemon", "123456", "0112345678901286", "MQR1", "rMQR in the daemon"] {
            #expect(client.waitForScan(text, timeout: 30).match != nil, "\(text): \(daemon.log.suffix(500))")
        }
        // Several passes over the stacked DataBar frames later, the daemon still runs.
        #expect(client.waitForScan("DM in the daemon", timeout: 5).match != nil)
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0)
    }
}
