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
        let listen = try ListenProcess(socket: first.socketPath, count: 2)
        let reader = listen.output
        #expect(reader.line() == "QR-Code:before restart")
        #expect(first.stop() == 0)
        let second = try DaemonProcess(
            config: Fixtures.config(device: "replay:\(try Fixtures.replayDirectory(codes: ["after restart"]))"), socketPath: first.socketPath)
        _ = second
        #expect(reader.line() == "QR-Code:after restart")
        // With --count 2 it ends by itself: its output closes, then it has exited 0.
        #expect(reader.line(timeout: 10) == nil)
        listen.process.waitUntilExit()
        #expect(listen.process.terminationStatus == 0)
    }

    /// On a terminal, `listen` escapes control characters (a code cannot clear the screen or
    /// retitle the window); the same read through a pipe is as decoded (listenSurvivesADaemonRestart).
    @Test func listenEscapesControlCharactersOnATerminal() throws {
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(try Fixtures.replayDirectory(codes: [HostileCode.text]))"))
        #expect(daemon.waitForLog("listening on"))
        let shown = "QR-Code:" + HostileCode.Policy.escape.serialData + "\n"
        let got = try Tool.scannerOnTerminal(["listen", "--socket", daemon.socketPath, "--count", "1"], atLeast: shown.utf8.count)
        #expect(String(decoding: got, as: UTF8.self) == shown)
    }
}
