import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kiosk-scanner snapshot` against a running daemon: where and how it writes its picture.
@Suite struct SnapshotCommandTests {
    /// A daemon replaying a QR code of `text`, once it has read it, and a path for a snapshot.
    static func daemon(showing text: String) throws -> (DaemonProcess, String) {
        let replay = try TemporaryDirectory.shared.directory("snapshot-replay")
        let code = try Barcodes.qr(bytes: Array(text.utf8), moduleSize: 6)
        try FileManager.default.copyItem(atPath: code, toPath: "\(replay)/code.png")
        let daemon = try DaemonProcess(config: "camera:\n  device: \"replay:\(replay)\"\n")
        let client = try daemon.connect()
        try #require(client.waitForScan(text).match != nil, "the daemon never read the code: \(daemon.log)")
        return (daemon, daemon.directory + "/snapshot.png")
    }

    /// The PNG is written whole beside its name and renamed over it (AtomicFile): a symlink planted
    /// at that name is replaced, and the file it points to is not written through.
    @Test func aPlantedSymlinkAtTheSnapshotPathIsNotFollowed() throws {
        let (daemon, out) = try Self.daemon(showing: "planted")
        let victim = daemon.directory + "/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        symlink(victim, out)
        let snapshot = try Tool.capture(Tool.scannerBinary, ["snapshot", "--out", out, "--socket", daemon.socketPath])
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("precious\n".utf8), "the file behind the symlink is as it was")
        #expect(try FileManager.default.attributesOfItem(atPath: out)[.type] as? FileAttributeType == .typeRegular)
        let scan = try Tool.capture(Tool.scannerBinary, ["scan", out])
        #expect(scan.stdout == "QR-Code:planted\n", "the snapshot is the picture: \(scan.stdout) \(scan.stderr)")
    }
}
