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
