import Foundation
import ScannerTestSupport
import Testing

/// Logs the journal understands: with standard error connected to the journal (JOURNAL_STREAM names
/// its device and inode), each line starts with its syslog priority, so `journalctl -p` filters by level.
@Suite struct JournalTests {
    /// Runs the daemon on a config it refuses, standard error into a file, with JOURNAL_STREAM naming
    /// that file (as systemd names its stream) or another one; returns what it logged.
    func logged(namingTheStream: Bool) throws -> String {
        let directory = try TemporaryDirectory.shared.directory("journal")
        let config = "\(directory)/bad.conf"
        let log = "\(directory)/stderr"
        try Data("camera:\n  fps: 500\n".utf8).write(to: URL(fileURLWithPath: config))
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: log))
        var status = stat()
        #expect(stat(namingTheStream ? log : config, &status) == 0)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Tool.scannerBinary)
        process.arguments = ["run", "--config", config]
        process.environment = ProcessInfo.processInfo.environment.merging(["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]) { $1 }
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "a bad config stops the daemon")
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    @Test func linesCarryTheirPriorityWhenStandardErrorIsTheJournal() throws {
        let journal = try logged(namingTheStream: true)
        #expect(journal.hasPrefix("<2>kiosk-scanner: "), "critical is priority 2: \(journal)")
        #expect(journal.contains("camera.fps"))
        // Standard error is not the stream JOURNAL_STREAM names (redirected): plain lines with a timestamp.
        let redirected = try logged(namingTheStream: false)
        #expect(!redirected.hasPrefix("<"), "\(redirected)")
        #expect(redirected.contains("critical") && redirected.contains("camera.fps"))
    }
}
