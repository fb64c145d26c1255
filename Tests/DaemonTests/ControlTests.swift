import Foundation
import ScannerTestSupport
import Testing

/// Socket commands that change what the scanner does, on the emulated camera.
@Suite(.serialized) struct ControlTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("control") }

    func blank() throws { try bench.camera.plug([:]) }

    @Test func pauseStopsReadsAndTheAutoTorchUntilResume() throws {
        try blank()
        let daemon = try bench.start()
        let client = try daemon.connect()
        #expect(client.waitFor { $0["camera"] as? String == "streaming" && $0["torch"] as? String == "on" }.match != nil)
        #expect(client.command("pause")?["ok"] as? Bool == true)
        let paused = client.waitFor { $0["type"] as? String == "state" && $0["paused"] as? Bool == true }.match
        #expect(paused?["torch"] as? String == "off", "auto torch is off while paused")
        try bench.show("while paused")
        // A status round trip after several frames: nothing was read.
        usleep(300_000)  // frames must pass for the absence of a read to mean anything
        let status = try #require(client.command("status")?["status"] as? [String: Any])
        #expect((status["counters"] as? [String: Any])?["reads"] as? Int == 0)
        #expect(client.command("resume")?["ok"] as? Bool == true)
        #expect(client.waitForScan("while paused").match != nil)
    }

    @Test func torchCommandSetsTheModeAndTheStateSaysSo() throws {
        try blank()
        let daemon = try bench.start()
        let client = try daemon.connect()
        _ = client.waitForCamera("streaming")
        #expect(client.command("torch off")?["ok"] as? Bool == true)
        #expect(client.waitFor { $0["torch_mode"] as? String == "off" }.match?["torch"] as? String == "off")
        #expect(client.command("torch on")?["ok"] as? Bool == true)
        #expect(client.waitFor { $0["torch_mode"] as? String == "on" }.match?["torch"] as? String == "on")
        let reply = client.command("torch bright")
        #expect(reply?["ok"] as? Bool == false && (reply?["error"] as? String)?.contains("torch on|off|auto") == true)
        // Unplugged, the torch goes off even in `on` mode; it comes back on with the camera.
        bench.camera.unplug()
        #expect(client.waitFor { $0["camera"] as? String == "interrupted" }.match?["torch"] as? String == "off")
        try blank()
        #expect(client.waitFor { $0["camera"] as? String == "streaming" }.match?["torch"] as? String == "on")
        #expect(daemon.stop() == 0)
        let torchLines = daemon.log.split(separator: "\n").filter { $0.hasSuffix("] torch on") || $0.hasSuffix("] torch off") }
        #expect(torchLines.last?.hasSuffix("torch off") == true, "the torch is switched off at exit")
    }

    @Test func triggerModeReadsOneCodePerTrigger() throws {
        try bench.show("trigger me")
        let daemon = try bench.start(scanner: "  mode: trigger\n  trigger_timeout: 3", extra: "tracking:\n  absence: 0\n")
        let client = try daemon.connect()
        let state = try #require(client.waitForCamera("streaming"))
        #expect(state["mode"] as? String == "trigger" && state["scanning"] as? Bool == false)
        for round in 1...3 {
            #expect(client.command("trigger")?["ok"] as? Bool == true, "round \(round)")
            #expect(client.waitForScan("trigger me").match != nil, "round \(round)")
            // The session ends with the read: scanning stops until the next trigger.
            #expect(client.waitFor { $0["type"] as? String == "state" && $0["scanning"] as? Bool == false }.match != nil)
        }
        let status = try #require(client.command("status")?["status"] as? [String: Any])
        #expect((status["counters"] as? [String: Any])?["reads"] as? Int == 3)
    }
}
