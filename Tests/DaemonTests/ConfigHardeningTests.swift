import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Config files a careless admin (or an attacker with write access) can put in place: deep,
/// large, not a file at all. `check-config` says what is wrong; a reload keeps the running config
/// and never stands between the daemon and SIGTERM.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ConfigHardeningTests {
    let directory: String

    init() throws {
        directory = try TemporaryDirectory.shared.directory("config-hardening")
    }

    func checkConfig(_ path: String) throws -> ToolResult {
        try Tool.capture(Tool.scannerBinary, ["check-config", path])
    }

    func write(_ text: String, _ name: String) throws -> String {
        let path = "\(directory)/\(name)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Tens of thousands of levels in 80 KB.
    static let deep = "camera: " + String(repeating: "[", count: 40_000) + String(repeating: "]", count: 40_000) + "\n"

    /// A megabyte of one list (about 120,000 items) and of one mapping (about 60,000 keys).
    static let longList = "decoder:\n  symbologies: [" + Array(repeating: "qr", count: 120_000).joined(separator: ", ") + "]\n"
    static let wideMapping = "camera:\n  controls:\n" + (0..<60_000).map { "    c\($0): 1\n" }.joined()

    @Test func deepNestingIsAnErrorWithItsLine() throws {
        let result = try checkConfig(write(Self.deep, "deep.conf"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("deep.conf:1: YAML syntax: nested more than 64 levels deep"), "\(result.stderr)")
    }

    @Test func largeListsAndMappingsLoad() throws {
        let list = try checkConfig(write(Self.longList, "list.conf"))
        #expect(list.status == 0, "\(list.stderr)")
        let mapping = try checkConfig(write(Self.wideMapping, "mapping.conf"))
        #expect(mapping.status == 0, "\(mapping.stderr)")
    }

    @Test func aDirectoryOrAFIFOIsNotAConfigFile() throws {
        let folder = "\(directory)/folder.conf"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try checkConfig(folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a regular file (a directory)"), "\(result.stderr)")
        let fifo = "\(directory)/fifo.conf"
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = try checkConfig(fifo)
        #expect(piped.status == 1)
        #expect(piped.stderr.contains("not a regular file (a FIFO)"), "\(piped.stderr)")
    }

    @Test func reloadsOfBadFilesKeepTheRunningConfigAndNeverBlockShutdown() throws {
        let replay = try Fixtures.replayDirectory(codes: ["kept"])
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)"))
        let client = try daemon.connect()
        #expect(client.waitForScan("kept").match != nil)
        let good = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        var failures = 0
        func reload(_ install: () throws -> Void, expecting text: String) throws {
            try? FileManager.default.removeItem(atPath: daemon.configPath)
            try install()
            daemon.signal(SIGHUP)
            failures += 1
            #expect(daemon.waitForLog(text), "reload \(failures): \(text)")
        }
        try reload({ try Self.deep.write(toFile: daemon.configPath, atomically: true, encoding: .utf8) }, expecting: "nested more than 64 levels deep")
        try reload({ try FileManager.default.createDirectory(atPath: daemon.configPath, withIntermediateDirectories: false) }, expecting: "(a directory)")
        try reload({ #expect(mkfifo(daemon.configPath, 0o600) == 0) }, expecting: "(a FIFO)")
        #expect(daemon.log.components(separatedBy: "config reload failed, keeping the running config").count - 1 == 3)
        #expect(client.command("status")?["ok"] as? Bool == true, "the daemon serves on")
        // A large file being reloaded when SIGTERM comes: the daemon still stops at once, cleanly.
        try? FileManager.default.removeItem(atPath: daemon.configPath)
        try (good + Self.wideMapping.replacingOccurrences(of: "camera:\n", with: "metrics_unused:\n")).write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(daemon.stop() == 0)
    }
}
