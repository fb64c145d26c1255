import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's metrics textfile is written through `AtomicFile`: a symlink planted where the old
/// writer put its temporary file (`FILE.tmp`) is neither followed nor overwritten.
@Suite struct MetricsTextfileTests {
    @Test func aPlantedSymlinkIsLeftUntouched() throws {
        let directory = try TemporaryDirectory.shared.directory("textfile-symlink")
        let victim = "\(directory)/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        symlink(victim, "\(directory)/kiosk.prom.tmp")
        let replay = try Fixtures.replayDirectory(codes: ["metered"])
        let daemon = try DaemonProcess(
            config: Fixtures.config(device: "replay:\(replay)", extra: "metrics:\n  textfile: \(directory)/kiosk.prom\n  interval: 1\n"))
        // The daemon logs a textfile only when writing it fails: the file's arrival is the event.
        let deadline = Date().addingTimeInterval(20)
        var text = ""
        while !text.contains("# TYPE kiosk_scanner_reads_total counter") && Date() < deadline {
            text = (try? String(contentsOfFile: "\(directory)/kiosk.prom", encoding: .utf8)) ?? ""
            usleep(50_000)
        }
        #expect(text.contains("# TYPE kiosk_scanner_reads_total counter"), "\(daemon.log)")
        #expect(!daemon.log.contains("metrics textfile: cannot write"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/kiosk.prom.tmp") == victim)
    }
}
