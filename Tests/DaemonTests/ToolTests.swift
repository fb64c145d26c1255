import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The installer's and operator's tools against a running daemon: snapshot, record and replay,
/// counters, and the metrics textfile.
@Suite struct ToolTests {
    @Test func snapshotDrawsTheViewportAndScansToTheCodeInView() throws {
        let directory = try TemporaryDirectory.shared.directory("snapshot")
        _ = try Fixtures.qrFrameFile("aim here", in: directory)
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(directory)"))
        let client = try daemon.connect()
        #expect(client.waitForScan("aim here").match != nil)

        let out = daemon.directory + "/aim.png"
        let snapshot = try Tool.capture(Tool.scannerBinary, ["snapshot", "--out", out, "--socket", daemon.socketPath])
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        #expect(snapshot.stdout.contains("QR-Code aim here"))
        let image = try RGBImage.readPNG(path: out)
        #expect(image.width == 640 && image.height == 480)
        // The default viewport: a centred square of 0.75 of the short side, framed just outside.
        let viewport = Viewport.standard.pixels(in: Size(width: 640, height: 480))
        let yellow: (r: UInt8, g: UInt8, b: UInt8) = (255, 220, 0)
        for (x, y) in [(viewport.x - 1, 240), (viewport.x + viewport.width, 240), (320, viewport.y - 1), (320, viewport.y + viewport.height)] {
            #expect(image[x, y] == yellow, "viewport frame at \(x),\(y)")
        }
        let inside = image[viewport.x + 5, viewport.y + 5]
        #expect(inside.r == inside.g && inside.g == inside.b, "the picture itself stays grey")
        let green = (0..<image.height).flatMap { y in (0..<image.width).map { (x: $0, y: y) } }.filter { image[$0.x, $0.y] == (0, 230, 0) }
        #expect(green.count > 100, "the code is outlined")

        let scan = try Tool.capture(Tool.scannerBinary, ["scan", out])
        #expect(scan.stdout == "QR-Code:aim here\n", "\(scan.stdout) \(scan.stderr)")
    }

    @Test func snapshotWithoutACameraSaysWhy() throws {
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:/nonexistent-kiosk"))
        _ = try daemon.connect()
        let snapshot = try Tool.capture(Tool.scannerBinary, ["snapshot", "--out", daemon.directory + "/none.png", "--socket", daemon.socketPath])
        #expect(snapshot.status == 1)
        #expect(snapshot.stderr.contains("no frame: camera unavailable"), "\(snapshot.stderr)")
        #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/none.png"))
    }

    @Test func countersAddUpAfterASessionWithDrops() throws {
        let replay = try Fixtures.replayDirectory(codes: ["count a", "count b", "count c", "count d"], blanks: 5)
        // One held read at most while nobody listens: the others are dropped as hold-full.
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  hold_count: 1\n"))
        #expect(daemon.waitForLog("read dropped: hold-full"))
        let client = try daemon.connect()
        #expect(client.waitForScan("count d").match != nil)
        #expect(client.command("pause")?["ok"] as? Bool == true)
        // Paused, reads in flight settle; then detections = reads + duplicates + dropped + held.
        let (balanced, counters, held) = client.waitForBalancedCounters(timeout: 5)
        #expect(balanced, "\(counters), held \(held)")
        #expect(held == 0)
        #expect((counters["dropped"] as? [String: Int])?["hold-full"] ?? 0 >= 1)
        #expect(counters["reads"] as? Int ?? 0 >= 2)
    }

    @Test func metricsTextfileIsWrittenAndKeptCurrent() throws {
        let directory = try TemporaryDirectory.shared.directory("textfile")
        let replay = try Fixtures.replayDirectory(codes: ["metered"])
        let daemon = try DaemonProcess(
            config: Fixtures.config(
                device: "replay:\(replay)", extra: "metrics:\n  textfile: \(directory)/kiosk.prom\n  interval: 1\n"))
        let client = try daemon.connect()
        #expect(client.waitForScan("metered").match != nil)
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("kiosk_scanner_reads_total 1\n") && Date() < deadline {
            text = (try? String(contentsOfFile: "\(directory)/kiosk.prom", encoding: .utf8)) ?? ""
            usleep(50_000)
        }
        #expect(text.contains("kiosk_scanner_reads_total 1\n"), "\(text)")
        #expect(text.contains("# TYPE kiosk_scanner_decode_seconds histogram"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/kiosk.prom.tmp"), "written by rename")
    }
}
