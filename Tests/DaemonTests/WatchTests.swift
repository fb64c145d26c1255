import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// A console's connection against the real daemon on the emulated camera: `watch` and its views,
/// who may watch, a watcher that never reads, the outcome of every read, and `restrict`.
@Suite(.serialized) struct WatchTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("watch") }

    static func isView(_ event: [String: Any]) -> Bool { event["type"] as? String == "view" }

    static func status(_ client: SocketClient) throws -> [String: Any] {
        try #require(client.command("status")?["status"] as? [String: Any])
    }

    @Test func viewsComeAtTheAskedWidthWithTheCodeInViewUntilUnwatch() throws {
        try bench.show("in view")
        let daemon = try bench.start()
        let console = try daemon.connect(subscribe: false)
        #expect(console.waitForCamera("streaming") != nil)
        #expect(console.command("watch 10 320")?["ok"] as? Bool == true)
        let view = try #require(console.waitFor { Self.isView($0) && !($0["codes"] as? [Any] ?? []).isEmpty }.match)
        #expect(view["frame_width"] as? Int == 640 && view["frame_height"] as? Int == 480)
        #expect(view["width"] as? Int == 320 && view["height"] as? Int == 240)
        let jpeg = try #require(Data(base64Encoded: view["jpeg"] as? String ?? ""))
        #expect(try ImageFile.decode([UInt8](jpeg), path: "view.jpg").size == Size(width: 320, height: 240))
        let viewport = try #require(view["viewport"] as? [String: Int])
        let (x, y, width, height) = (viewport["x"] ?? -1, viewport["y"] ?? -1, viewport["width"] ?? 0, viewport["height"] ?? 0)
        #expect(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= 320 && y + height <= 240, "\(viewport)")
        let code = try #require((view["codes"] as? [[String: Any]])?.first)
        #expect(code["text"] as? String == "in view" && code["symbology"] as? String == "QR-Code")
        let corners = try #require(code["corners"] as? [[Int]])
        #expect(corners.count == 4 && corners.allSatisfy { $0.count == 2 && (x..<x + width).contains($0[0]) && (y..<y + height).contains($0[1]) }, "\(corners)")
        #expect(try Self.status(console)["watchers"] as? Int == 1)

        #expect(console.command("unwatch")?["ok"] as? Bool == true)
        // Nothing comes after the reply to unwatch: the next line is the reply to status.
        console.send("status")
        #expect(console.event()?["command"] as? String == "status")
        #expect(daemon.waitForLog("takes camera images: watch (10 fps, 320 px wide)"))
        #expect(daemon.waitForLog("stopped watching (unwatch) after "))
        #expect(console.command("unwatch")?["error"] as? String == "no watch runs on this connection")

        // The default width is wider than the frame: it is not scaled up.
        #expect(console.command("watch")?["ok"] as? Bool == true)
        let full = try #require(console.waitFor { Self.isView($0) }.match)
        #expect(full["width"] as? Int == 640 && full["height"] as? Int == 480)
        #expect(console.command("snapshot")?["error"] as? String == "a snapshot, recording or watch is already running on this connection")
    }

    @Test func watchingNeedsImagesAndIsRefusedWhilePaused() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start(extra: "socket:\n  mode: \"0666\"\n")
        let root = try daemon.connect(subscribe: false)
        _ = root.waitForCamera("streaming")
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        #expect(try SocketHardeningTests.ask(daemon.socketPath, "watch", as: nobody).contains("permission denied"))
        #expect(daemon.waitForLog("refused: watch"))

        #expect(root.command("pause")?["ok"] as? Bool == true)
        #expect((root.command("watch")?["error"] as? String)?.contains("refused while scanning is paused") == true)
        #expect(root.command("resume")?["ok"] as? Bool == true)
        #expect(root.command("watch 2 160")?["ok"] as? Bool == true)
        #expect(root.waitFor { Self.isView($0) }.match?["width"] as? Int == 160)

        let blind = try bench.start(extra: "socket:\n  images: false\n")
        let client = try blind.connect(subscribe: false)
        _ = client.waitForCamera("streaming")
        #expect((client.command("watch")?["error"] as? String)?.contains("socket.images: false") == true)
    }

    /// The watcher reads nothing while codes come and go: the consumer gets every read, and the
    /// watcher's socket holds one view (the others were skipped, as status counts).
    @Test func aWatcherThatNeverReadsHoldsOneViewAndBlocksNoRead() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start()
        let pos = try daemon.connect()
        _ = pos.waitForCamera("streaming")
        let control = try daemon.connectControl()
        let watcher = try daemon.connect(subscribe: false)
        watcher.send("watch 15 640")
        let codes = ["past one", "past two", "past three"]
        for code in codes {
            try bench.show(code)
            #expect(pos.waitForScan(code).match != nil)
        }
        var skipped = 0
        let deadline = Date().addingTimeInterval(20)
        repeat {
            skipped = (try Self.status(control)["counters"] as? [String: Any])?["views_skipped"] as? Int ?? 0
        } while skipped < 5 && Date() < deadline
        #expect(skipped >= 5)
        #expect(daemon.process.isRunning)

        // Once the watch is over (status says so), what the watcher's socket holds is read.
        watcher.send("unwatch")
        var watchers = -1
        repeat { watchers = try Self.status(control)["watchers"] as? Int ?? -1 } while watchers != 0 && Date() < deadline
        #expect(watchers == 0)
        var events: [[String: Any]] = []
        while let event = watcher.event(timeout: 10) {
            events.append(event)
            if event["command"] as? String == "unwatch" { break }
        }
        #expect(events.count { Self.isView($0) } == 1, "\(events.map { $0["type"] as? String ?? "?" })")
        #expect(events.count { $0["type"] as? String == "scan" } == 0, "a watcher takes no reads")
        let delivered = events.filter { $0["type"] as? String == "outcome" && $0["outcome"] as? String == "delivered" }
        #expect(delivered.compactMap { $0["text"] as? String } == codes)
        #expect(daemon.waitForLog(" s: 1 views sent, "))
    }

    /// No consumer: the read is held (not given to the watcher, connected long enough to be taken
    /// for a consumer); then a consumer reads it, and the next read goes straight through.
    @Test func aWatcherHearsWhatBecameOfEveryRead() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start()
        let watcher = try daemon.connect(subscribe: false)
        _ = watcher.waitForCamera("streaming")
        #expect(watcher.command("watch 4 160")?["ok"] as? Bool == true)
        // Three views at 4 a second: past socket.consumer_after (0.5 s).
        for _ in 0..<3 { #expect(watcher.waitFor { Self.isView($0) }.match != nil) }
        try bench.show("nobody takes me")
        let held = try #require(watcher.waitFor { $0["type"] as? String == "outcome" }.match)
        #expect(held["outcome"] as? String == "held" && held["reason"] as? String == "no-client", "\(held)")
        #expect(held["text"] as? String == "nobody takes me" && held["symbology"] as? String == "QR-Code")

        let pos = try daemon.connect()
        let scan = try #require(pos.waitForScan("nobody takes me").match)
        let delivered = watcher.waitFor { $0["type"] as? String == "outcome" }
        #expect(delivered.match?["outcome"] as? String == "delivered" && delivered.match?["seq"] as? Int == scan["seq"] as? Int)
        #expect(delivered.match?["reason"] == nil)
        #expect(!delivered.skipped.contains { $0["type"] as? String == "scan" }, "a watcher takes no reads")

        try bench.show("straight through")
        #expect(pos.waitForScan("straight through").match != nil)
        let next = watcher.waitFor { $0["type"] as? String == "outcome" }.match
        #expect(next?["outcome"] as? String == "delivered" && next?["text"] as? String == "straight through")
    }

    @Test func aRestrictedConnectionLosesControlButKeepsImagesAndStatus() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start()
        let viewer = try daemon.connect(subscribe: false)
        _ = viewer.waitForCamera("streaming")
        #expect(viewer.command("torch on")?["ok"] as? Bool == true)
        #expect(viewer.command("restrict")?["ok"] as? Bool == true)
        for command in ["torch off", "pause", "resume", "trigger", "beep"] {
            let error = viewer.command(command)?["error"] as? String
            #expect(error?.contains("permission denied") == true && error?.contains("restricted") == true, "\(command): \(String(describing: error))")
        }
        #expect(daemon.waitForLog("refused: torch (restricted)"))
        #expect(try Self.status(viewer)["state"] as? [String: Any] != nil)
        // Nothing gives the rights back.
        #expect(viewer.command("subscribe")?["ok"] as? Bool == true)
        #expect(viewer.command("restrict")?["ok"] as? Bool == true)
        #expect((viewer.command("torch off")?["error"] as? String)?.contains("restricted") == true)
        #expect(viewer.command("watch 2 160")?["ok"] as? Bool == true)
        #expect(viewer.waitFor { Self.isView($0) }.match != nil)
        // Rights are the connection's: another from the same peer still controls.
        let other = try daemon.connectControl()
        #expect(other.command("torch off")?["ok"] as? Bool == true)
    }

    /// In the plain format the replies are plain and the views JSON, as record's frames are.
    @Test func inThePlainFormatViewsAndOutcomesAreJSON() throws {
        try bench.camera.plug([:])
        let daemon = try bench.start(extra: "socket:\n  format: plain\n")
        let console = try daemon.connect(subscribe: false)
        console.send("watch 4 160")
        #expect(console.line() == "ok")
        let view = try #require(console.event())
        #expect(Self.isView(view) && view["width"] as? Int == 160, "\(view)")
        let pos = try daemon.connect()
        try bench.show("plain and json")
        #expect(pos.line(timeout: 10) == "plain and json")
        let outcome = console.waitFor { $0["type"] as? String == "outcome" }.match
        #expect(outcome?["outcome"] as? String == "delivered" && outcome?["text"] as? String == "plain and json")
    }
}
