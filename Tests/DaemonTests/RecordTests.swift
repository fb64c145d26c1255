import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kiosk-scanner record` against the emulated camera, and `replay:DIR` of what it wrote.
@Suite(.serialized) struct RecordTests {
    let directory: String
    let camera: EmulatedCamera

    init() throws {
        directory = try TemporaryDirectory.shared.directory("record")
        camera = EmulatedCamera(directory: directory)
    }

    @Test func recordThenReplayGivesTheSameReadsInTheSameOrder() throws {
        try camera.plug(["background": "200"])
        let live = try DaemonProcess(config: Fixtures.config(device: camera.node), environment: camera.environment)
        let client = try live.connect()
        #expect(client.waitForCamera("streaming") != nil)
        let recording = directory + "/take"
        let recorder = try Tool.start(Tool.scannerBinary, ["record", recording, "--seconds", "4", "--socket", live.socketPath])
        #expect(live.waitForLog("records frames until"))
        let codes = ["first on tape", "second on tape", "third on tape"]
        for code in codes {
            try camera.plug(["background": "200", "frame": Fixtures.qrFrameFile(code, in: directory)])
            #expect(client.waitForScan(code).match != nil)
        }
        let result = recorder.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: recording + "/index.json"))
        let index = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(index["frames"] as? [[String: Any]])
        #expect(frames.count > 30, "about 4 s of 30 fps")
        let recorded = frames.flatMap { ($0["reads"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String } }
        #expect(recorded == codes)
        #expect(frames.allSatisfy { FileManager.default.fileExists(atPath: "\(recording)/\($0["file"] as? String ?? "-")") })

        let replay = try DaemonProcess(config: Fixtures.config(device: "replay:\(recording)"))
        let listener = try replay.connect()
        // The replay source loads every recorded frame before it streams: seconds in a debug build
        // on a busy machine. The reads are waited for once it streams.
        #expect(listener.waitForCamera("streaming", timeout: 120) != nil)
        var replayed: [String] = []
        while replayed.count < codes.count, let event = listener.waitFor(timeout: 10, { $0["type"] as? String == "scan" }).match {
            replayed.append(event["text"] as? String ?? "")
        }
        #expect(replayed == codes)
    }

    @Test func recordingStaysWithinItsDiskBudget() throws {
        try camera.plug(["background": "200", "noise": "4"])
        let live = try DaemonProcess(config: Fixtures.config(device: camera.node), environment: camera.environment)
        _ = try live.connect()
        // 640x480 frames are 300 KiB: a 1 MiB budget holds three.
        let small = try Tool.capture(
            Tool.scannerBinary, ["record", directory + "/small", "--seconds", "5", "--max-megabytes", "1", "--socket", live.socketPath])
        #expect(small.status == 1)
        #expect(small.stderr.contains("stopped early: the recording would exceed --max-megabytes 1"), "\(small.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/small")
        #expect(files.filter { $0.hasSuffix(".pgm") }.count == 3)
        #expect(files.contains("index.json"), "what was recorded stays usable")

        let full = try Tool.capture(
            Tool.scannerBinary, ["record", directory + "/full", "--seconds", "1", "--keep-free-megabytes", "100000000", "--socket", live.socketPath])
        #expect(full.status == 1)
        #expect(full.stderr.contains("refusing to start"), "\(full.stderr)")
        #expect(full.stderr.contains("must keep 100000000 MiB free"))
    }
}
