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

    /// `listen --ack` acks what it prints: with `socket.acknowledge: required` its reads are delivered,
    /// in either socket format.
    @Test(arguments: ["json", "plain"])
    func listenAcksWhatItPrints(format: String) throws {
        let replay = try Fixtures.replayDirectory(codes: ["acked one", "acked two"], blanks: 2)
        let daemon = try DaemonProcess(config: Fixtures.config(device: "replay:\(replay)", extra: "socket:\n  acknowledge: required\n  format: \(format)\n"))
        #expect(daemon.waitForLog("listening on"))
        let listen = try ListenProcess(socket: daemon.socketPath, count: 2, extra: ["--ack"])
        let printed = [listen.output.line(), listen.output.line()]
        #expect(printed.allSatisfy { $0?.contains("acked") == true }, "\(printed)")
        listen.process.waitUntilExit()
        #expect(daemon.waitForLog("client 1 disconnected"))
        let control = try daemon.connect(subscribe: false)
        control.send("unsubscribe")
        control.send("status")
        if format == "json" {
            let counters = try #require(
                (control.waitFor { $0["command"] as? String == "status" }.match?["status"] as? [String: Any])?["counters"] as? [String: Any])
            #expect((counters["reads"] as? Int ?? 0) >= 2, "delivered on listen's acks")
        } else {
            _ = control.line()
            #expect(control.line()?.contains("reads=2") == true)
        }
    }
}
