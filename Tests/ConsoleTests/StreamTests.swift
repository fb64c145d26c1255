import Console
import Foundation
import Testing

/// The live stream: a daemon connection of its own per browser, `watch` only while it streams, one
/// view in flight, controls refused by the daemon for a viewer, and no stream across sites.
@Suite(.timeLimit(.minutes(10))) struct StreamTests {
    @Test func watchIsSentOnlyWhileABrowserStreams() async throws {
        try await ConsoleFixture.run(signIn: false) { console in
            // The health monitor's connection asks for status, and never watches.
            let poller = await console.daemon.waitFor("status").connection
            #expect(!console.daemon.allLines.contains { $0.text.hasPrefix("watch") })
            let viewer = try await console.stream(session: nil) { browser in
                #expect(browser.status == 101)
                let hello = try #require(try await browser.next(type: "hello"))
                #expect(hello["user"] as? String == "local" && hello["control"] as? Bool == true && hello["fps"] as? Int == 4)
                let watch = await console.daemon.waitFor("watch 4 640")
                #expect(watch.connection != poller)
                #expect(console.daemon.lines(of: watch.connection) == ["unsubscribe", "watch 4 640"], "a local user is not restricted")
                return watch.connection
            }
            await console.daemon.waitFor("unwatch", on: viewer)
            await console.daemon.waitFor("<closed>", on: viewer)
            #expect(console.daemon.lines(of: viewer) == ["unsubscribe", "watch 4 640", "unwatch", "<closed>"])
            #expect(!console.daemon.lines(of: poller).contains { $0.hasPrefix("watch") })
            #expect(console.log.all.contains { $0.hasPrefix("notice: stream started for local from ") })
            #expect(console.log.all.contains { $0.hasPrefix("notice: stream ended for local from ") })
        }
    }

    /// The browser gets one view, then nothing but messages until it has drawn it; then the
    /// newest view, the ones between skipped.
    @Test func oneViewInFlightAndTheNewestNext() async throws {
        try await ConsoleFixture.run(signIn: false) { console in
            try await console.stream(session: nil) { browser in
                await console.daemon.waitFor("watch 4 640")
                console.daemon.sendToWatchers(FakeDaemon.view(seq: 1, codes: [("EAN-13", "5901234123457")]))
                let first = try #require(try await browser.next(type: "view"))
                #expect(first["seq"] as? Int == 1)
                let codes = try #require(first["codes"] as? [[String: Any]])
                #expect(codes.first?["text"] as? String == "5901234123457")
                console.daemon.sendToWatchers(FakeDaemon.view(seq: 2))
                console.daemon.sendToWatchers(FakeDaemon.view(seq: 3))
                console.daemon.sendToWatchers(FakeDaemon.outcome(seq: 7, text: "<script>"))
                // The outcome came after views 2 and 3, so both reached the console before it.
                let outcome = try #require(try await browser.next(type: "outcome"))
                #expect(outcome["text"] as? String == "<script>" && outcome["outcome"] as? String == "delivered")
                try await browser.send(#"{"type":"next"}"#)
                let next = try #require(try await browser.next(type: "view"))
                #expect(next["seq"] as? Int == 3, "view 2 was skipped for the newer one")
            }
        }
    }

    @Test func theBrowserLowersTheRateAndSize() async throws {
        try await ConsoleFixture.run(signIn: false) { console in
            try await console.stream(session: nil) { browser in
                let watch = await console.daemon.waitFor("watch 4 640")
                try await browser.send(#"{"type":"settings","fps":2,"width":320}"#)
                await console.daemon.waitFor("watch 2 320", on: watch.connection)
                try await browser.send(#"{"type":"settings","fps":99,"width":10}"#)
                await console.daemon.waitFor("watch 15 160", on: watch.connection)
            }
        }
    }

    /// A viewer not in control_users: its connection is restricted before it watches, and the
    /// daemon's refusal of a control reaches the page. A control user's is not.
    @Test func aViewerIsRestrictedAndAControlUserIsNot() async throws {
        try await ConsoleFixture.run { console in
            let viewer = try await console.signIn(user: "viewer", password: "staple correct")
            try await console.stream(session: viewer) { browser in
                #expect(browser.status == 101)
                let hello = try #require(try await browser.next(type: "hello"))
                #expect(hello["user"] as? String == "viewer" && hello["control"] as? Bool == false)
                let watch = await console.daemon.waitFor("watch 4 640")
                #expect(console.daemon.lines(of: watch.connection) == ["unsubscribe", "restrict", "watch 4 640"])
                try await browser.send(#"{"type":"control","command":"torch on"}"#)
                let result = try #require(try await browser.next(type: "control"))
                #expect(result["command"] as? String == "torch on" && result["ok"] as? Bool == false)
                #expect(result["error"] as? String == "this connection was restricted: no controls", "the daemon's own words")
                // Only the controls pass: nothing else of the socket's commands.
                try await browser.send(#"{"type":"control","command":"snapshot"}"#)
                let refused = try #require(try await browser.next(type: "control"))
                #expect(refused["ok"] as? Bool == false && refused["error"] as? String == "not a control")
                #expect(!console.daemon.allLines.contains { $0.text == "snapshot" })
            }
            let viewerConnection = await console.daemon.waitFor("watch 4 640").connection
            let installer = try await console.signIn(user: "installer", password: "right horse battery")
            try await console.stream(session: installer) { browser in
                let watch = await console.daemon.waitFor { $0.text == "watch 4 640" && $0.connection != viewerConnection }
                #expect(console.daemon.lines(of: watch.connection).prefix(2) == ["unsubscribe", "watch 4 640"])
                try await browser.send(#"{"type":"control","command":"beep"}"#)
                let result = try #require(try await browser.next(type: "control"))
                #expect(result["command"] as? String == "beep" && result["ok"] as? Bool == true)
                await console.daemon.waitFor("beep", on: watch.connection)
            }
            #expect(console.log.all.contains { $0.hasPrefix("notice: control 'beep' from installer at ") })
        }
    }

    /// Cross-site WebSocket hijacking: a page of another site cannot open a stream with the
    /// user's cookie, nor can anything that sends no Origin. (A refused upgrade gets
    /// hummingbird-websocket's own 400.)
    @Test func aStreamOpensOnlyFromTheConsolesOwnPage() async throws {
        try await ConsoleFixture.run { console in
            let session = try await console.signIn(user: "installer", password: "right horse battery")
            #expect(try await console.stream(session: session, origin: "http://evil.example") { $0.status } == 400)
            #expect(try await console.stream(session: session, origin: "http://localhost:1") { $0.status } == 400, "another port is another origin")
            #expect(try await console.stream(session: session, origin: "") { $0.status } == 400)
            #expect(console.log.all.filter { $0.contains("refused a stream to ") && $0.contains("is not this console") }.count == 3)
            #expect(try await console.stream(session: session) { $0.status } == 101)
        }
    }

    @Test func healthComesFromTheSharedPoll() async throws {
        try await ConsoleFixture.run(signIn: false) { console in
            // A new stream starts with the newest sample (or, before the first reply, with the next).
            try await console.stream(session: nil) { browser in
                var health = try #require(try await browser.next(type: "health"))
                while health["sample"] == nil { health = try #require(try await browser.next(type: "health")) }
                let sample = try #require(health["sample"] as? [String: Any])
                #expect(sample["camera"] as? String == "streaming" && sample["torch"] as? String == "on" && sample["frames_gated"] as? Int == 100)
            }
            let history = try await console.get("/api/health")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: history.body).utf8)) as? [String: Any])
            #expect((object["samples"] as? [Any])?.isEmpty == false && object["interval"] as? Double == 5)
        }
    }

    @Test func theViewportEditorGetsCheckConfigsVerdict() async throws {
        try await ConsoleFixture.run(signIn: false) { console in
            let good = try await console.execute(
                uri: "/api/viewport", method: .post, headers: [.contentType: "application/json"],
                body: .init(string: #"{"x":0.1,"y":0.2,"width":0.5,"height":0.4}"#))
            let verdict = try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: good.body).utf8)) as? [String: Any])
            #expect(verdict["ok"] as? Bool == true && verdict["lines"] as? String == "viewport:\n  rect: [0.100, 0.200, 0.500, 0.400]\n")
            let bad = try await console.execute(
                uri: "/api/viewport", method: .post, body: .init(string: #"{"lines":"viewport:\n  rect: [0.8, 0, 0.5, 1]\n"}"#))
            let refusal = try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: bad.body).utf8)) as? [String: Any])
            #expect(refusal["ok"] as? Bool == false)
            #expect(refusal["error"] as? String == "lines:2: viewport.rect: rect must stay inside the frame (x+width and y+height at most 1)")
        }
    }

    /// Without sign-in files the console answers only to a loopback host name: a page that
    /// rebinds its own name to 127.0.0.1 gets nothing.
    @Test func withoutSignInOnlyLoopbackHostNamesAreAnswered() async throws {
        try await ConsoleFixture.run(signIn: false) { console in
            #expect(try await console.get("/").status == .ok, "Host: localhost")
            let rebound = try await console.stream(session: nil, origin: "http://evil.example:\(console.port)", host: "evil.example:\(console.port)") {
                $0.status
            }
            #expect(rebound == 400, "not upgraded")
        }
    }

    /// Without a daemon the page is told why, with the likely fix, and so is the log.
    @Test func aMissingDaemonIsNamedWithTheFix() async throws {
        try await ConsoleFixture.run(signIn: false) { console in
            await console.daemon.stop()
            try? FileManager.default.removeItem(atPath: console.daemon.path)
            try await console.stream(session: nil) { browser in
                let notice = try #require(try await browser.next(type: "notice"))
                #expect(
                    notice["text"] as? String
                        == "cannot reach the scanner daemon at \(console.daemon.path): No such file or directory: is kiosk-scanner running, and is socket.path its socket?"
                )
            }
        }
    }
}
