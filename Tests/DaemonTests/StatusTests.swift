import Daemon
import Foundation
import Platform
import ScannerTestSupport
import Testing

/// `kiosk-scanner status` and the `metrics` command against a running daemon.
@Suite struct StatusTests {
    @Test func statusAndMetricsReportWhatHappened() throws {
        let replay = try Fixtures.replayDirectory(codes: ["status one", "status two"], blanks: 20)
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"))
        let client = try daemon.connect()
        #expect(client.waitForScan("status two").match != nil)

        let text = try Tool.capture(Tool.scannerBinary, ["status", "--socket", daemon.socketPath])
        #expect(text.status == 0)
        #expect(text.stdout.contains("camera      streaming  replay:"))
        #expect(text.stdout.contains("torch       on (mode auto)"))
        #expect(text.stdout.contains("QR-Code"))

        let json = try Tool.capture(Tool.scannerBinary, ["status", "--json", "--socket", daemon.socketPath])
        let status = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let counters = try #require(status["counters"] as? [String: Any])
        let reads = counters["reads"] as? Int ?? 0
        #expect(reads >= 2)
        #expect(status["decode_ms_p50"] as? Double != nil)
        // With a client connected all along, every detection is a read (delivered or written and
        // not read yet) or a suppressed duplicate, and none is dropped. The replay goes round, so
        // a read can be on its way from capture to the socket as status is asked: asked again.
        let counted = client.waitForBalancedCounters(timeout: 20)
        #expect(counted.balanced, "\(counted.counters)")
        #expect((counted.counters["dropped"] as? [String: Int] ?? [:]).isEmpty)

        let metrics = try Tool.capture(Tool.scannerBinary, ["status", "--prometheus", "--socket", daemon.socketPath])
        #expect(metrics.stdout.contains("# TYPE kiosk_scanner_decode_seconds histogram"))
        #expect(metrics.stdout.contains("kiosk_scanner_reads_by_symbology_total{symbology=\"QR-Code\"}"))
        let total = metrics.stdout.split(separator: "\n").first { $0.hasPrefix("kiosk_scanner_reads_total ") }
        #expect((total.flatMap { Int($0.split(separator: " ")[1]) } ?? 0) >= reads)

        let missing = try Tool.capture(Tool.scannerBinary, ["status", "--socket", daemon.directory + "/nope.sock"])
        #expect(missing.status == 2 && missing.stderr.contains("No such file or directory; is the daemon running?"), "\(missing.stderr)")
    }

    @Test func statusWorksOnAPlainSocketAndGivesUpOnASilentOne() throws {
        let replay = try Fixtures.replayDirectory(codes: ["plain status"], blanks: 20)
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  format: plain\n"))
        let client = try daemon.connect()
        #expect(client.line() == "plain status")

        let text = try Tool.capture(Tool.scannerBinary, ["status", "--socket", daemon.socketPath])
        #expect(text.status == 0 && text.stdout.hasPrefix("camera=streaming torch="), "\(text.stdout) \(text.stderr)")
        let json = try Tool.capture(Tool.scannerBinary, ["status", "--json", "--socket", daemon.socketPath])
        #expect(json.status == 2 && json.stderr.contains("plain-format socket"))
        let metrics = try Tool.capture(Tool.scannerBinary, ["status", "--prometheus", "--socket", daemon.socketPath])
        #expect(metrics.status == 0 && metrics.stdout.contains("# TYPE kiosk_scanner_decode_seconds histogram"))
        #expect(!metrics.stdout.contains("plain status"), "reads on the socket are not metrics")

        // A socket that accepts and never answers (a hung daemon): status says so instead of hanging.
        let silent = daemon.directory + "/silent.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let bound = UnixAddress.with(silent) { bind(listener, $0, $1) }
        #expect(bound == 0 && listen(listener, 4) == 0)
        let hung = try Tool.capture(Tool.scannerBinary, ["status", "--timeout", "0.5", "--socket", silent])
        #expect(hung.status == 2 && hung.stderr.contains("no reply from the daemon"), "\(hung.stderr)")
    }
}
