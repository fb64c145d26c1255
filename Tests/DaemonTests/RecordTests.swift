import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kiosk-scanner record` against the emulated camera, and `replay:DIR` of what it wrote.
@Suite(.serialized) struct RecordTests {
    /// Whether this process may mount a tmpfs (root, outside a locked-down container): the test of
    /// a disk that fills up needs a small one.
    static let tmpfsMountable: Bool = {
        let probe = NSTemporaryDirectory() + "tmpfs-probe-\(getpid())"
        mkdir(probe, 0o700)
        defer { rmdir(probe) }
        guard mount("tmpfs", probe, "tmpfs", 0, "size=1m") == 0 else { return false }
        umount(probe)
        return true
    }()

    let bench: CameraBench

    init() throws { bench = try CameraBench("record") }

    @Test func recordThenReplayGivesTheSameReadsInTheSameOrder() throws {
        try bench.camera.plug(["background": "200"])
        let live = try bench.start()
        let client = try live.connect()
        #expect(client.waitForCamera("streaming") != nil)
        let recording = bench.directory + "/take"
        let recorder = try Tool.start(Tool.scannerBinary, ["record", recording, "--seconds", "4", "--socket", live.socketPath])
        #expect(live.waitForLog("records frames until"))
        let codes = ["first on tape", "second on tape", "third on tape"]
        for code in codes {
            try bench.show(code, with: ["background": "200"])
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
        try bench.camera.plug(["background": "200", "noise": "4"])
        let live = try bench.start()
        _ = try live.connect()
        // 640x480 frames are 300 KiB: a 1 MiB budget holds three.
        let small = try Tool.capture(
            Tool.scannerBinary, ["record", bench.directory + "/small", "--seconds", "5", "--max-megabytes", "1", "--socket", live.socketPath])
        #expect(small.status == 1)
        #expect(small.stderr.contains("stopped early: the recording would exceed --max-megabytes 1"), "\(small.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: bench.directory + "/small")
        #expect(files.filter { $0.hasSuffix(".pgm") }.count == 3)
        #expect(files.contains("index.json"), "what was recorded stays usable")

        let full = try Tool.capture(
            Tool.scannerBinary, ["record", bench.directory + "/full", "--seconds", "1", "--keep-free-megabytes", "100000000", "--socket", live.socketPath])
        #expect(full.status == 1)
        #expect(full.stderr.contains("refusing to start"), "\(full.stderr)")
        #expect(full.stderr.contains("must keep 100000000 MiB free"))
    }

    /// `--keep-free-megabytes 0` on a small tmpfs, and the same with the disk filled by someone else
    /// mid-recording: whatever the disk does, `index.json` is there and lists every frame on disk.
    @Test(.enabled(if: RecordTests.tmpfsMountable, "mounts a tmpfs: needs root outside a locked-down container"))
    func aFullDiskKeepsAnIndexOfEveryFrameWritten() throws {
        try bench.camera.plug(["background": "200", "noise": "4"])
        let live = try bench.start()
        _ = try live.connect()
        for filled in [false, true] {
            let disk = bench.directory + "/disk-\(filled)"
            mkdir(disk, 0o755)
            // 640x480 frames take 300 KiB: a few fill it.
            try #require(mount("tmpfs", disk, "tmpfs", 0, "size=3m") == 0, "mount: \(String(cString: strerror(errno)))")
            defer { umount2(disk, Int32(MNT_DETACH)) }
            let take = disk + "/take"
            let recorder = try Tool.start(
                Tool.scannerBinary, ["record", take, "--seconds", "20", "--keep-free-megabytes", "0", "--socket", live.socketPath])
            if filled {
                // Once frames come, another writer takes all that is left.
                let deadline = Date().addingTimeInterval(30)
                while ((try? FileManager.default.contentsOfDirectory(atPath: take)) ?? []).filter({ $0.hasSuffix(".pgm") }).count < 2,
                    Date() < deadline
                {
                    usleep(20_000)
                }
                let filler = fopen(disk + "/filler", "w")
                let block = [UInt8](repeating: 1, count: 4096)
                while fwrite(block, 1, block.count, filler) == block.count && fflush(filler) == 0 {}
                fclose(filler)
            }
            let result = recorder.wait()
            #expect(result.status == 1 && result.stderr.contains("stopped early"), "\(result.stderr)")
            // Alone on the disk it stops while the index still fits; filled by another, it makes room.
            #expect(result.stderr.contains(filled ? "frames removed to make room for index.json" : "must keep 0 MiB free"), "\(result.stderr)")
            let data = try Data(contentsOf: URL(fileURLWithPath: take + "/index.json"))
            let index = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let listed = (index["frames"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: take).filter { $0.hasSuffix(".pgm") }
            #expect(!listed.isEmpty && listed.sorted() == onDisk.sorted(), "listed \(listed), on disk \(onDisk): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: take).allSatisfy { $0.hasSuffix(".pgm") || $0 == "index.json" })
        }
    }
}
