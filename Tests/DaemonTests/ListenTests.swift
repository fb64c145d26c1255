import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ListenTests {
    /// `kiosk-scanner listen` prints reads as they arrive and reconnects across a daemon restart.
    @Test func listenSurvivesADaemonRestart() throws {
        let first = try DaemonProcess(config: Fixtures.config(device: "replay:\(try Fixtures.replayDirectory(codes: ["before restart"]))"))
        // No other client: the read waits in the hold queue, or comes live, for `listen` alone.
        #expect(first.waitForLog("listening on"))
        let listen = Process()
        listen.executableURL = URL(fileURLWithPath: Tool.scannerBinary)
        listen.arguments = ["listen", "--socket", first.socketPath, "--count", "2"]
        let output = Pipe()
        listen.standardOutput = output
        listen.standardError = FileHandle.nullDevice
        try listen.run()
        defer { if listen.isRunning { listen.terminate() } }
        let reader = LineReader(output.fileHandleForReading.fileDescriptor)
        #expect(reader.line() == "QR-Code:before restart")
        #expect(first.stop() == 0)
        let second = try DaemonProcess(
            config: Fixtures.config(device: "replay:\(try Fixtures.replayDirectory(codes: ["after restart"]))"), socketPath: first.socketPath)
        _ = second
        #expect(reader.line() == "QR-Code:after restart")
        // With --count 2 it ends by itself: its output closes, then it has exited 0.
        #expect(reader.line(timeout: 10) == nil)
        listen.waitUntilExit()
        #expect(listen.terminationStatus == 0)
    }
}

/// Lines from a pipe, with a timeout.
final class LineReader {
    let fd: Int32
    var pending: [UInt8] = []
    init(_ fd: Int32) { self.fd = fd }

    func line(timeout: Double = 15) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                defer { pending.removeSubrange(...newline) }
                return String(decoding: pending[..<newline], as: UTF8.self)
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard deadline.timeIntervalSinceNow > 0, poll(&descriptor, 1, Int32(deadline.timeIntervalSinceNow * 1000) + 1) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }
}
