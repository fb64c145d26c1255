import Foundation
import Imaging
import ScannerTestSupport
import Testing

/// The installer's console in a real browser: Debian's chromium, headless, against the real
/// `kiosk-scanner-web` in front of a real daemon on a replay camera whose code holds markup.
/// Sign-in, the live view, the reads list, the viewport editor's lines through `check-config`,
/// a viewer's refused control, and what a browser without a session or on another site gets.
@Suite(.serialized) struct ConsoleBrowserTests {
    /// A QR code's text that a page would run if it took the text as HTML.
    static let markup = "<script>alert(1)</script><img src=x onerror=alert(2)>"

    /// Frames for the replay camera: `text` in view for 2 s, then gone for 0.8 s (at 15 fps), so
    /// that every view of the first part shows it and every round makes a new read.
    static func replay(_ text: String) throws -> String {
        let directory = try TemporaryDirectory.shared.directory("console-replay")
        let size = Size(width: 320, height: 240)
        let code = try Fixtures.centredQR(text, size: size)
        let blank = Frame(width: size.width, height: size.height, pixels: [UInt8](repeating: 220, count: size.width * size.height))
        for index in 0..<42 {
            try Fixtures.pgm(index < 30 ? code : blank).write(to: URL(fileURLWithPath: String(format: "%@/%04d.pgm", directory, index + 1)))
        }
        return directory
    }

    /// A daemon replaying `markup` (in view, then gone, over and over), a POS consumer reading
    /// it, and the console with two users: `installer` may control, `viewer` may only look.
    final class Lane {
        let daemon: DaemonProcess
        let pos: SocketClient
        let console: LoggedProcess
        let url: String

        init() throws {
            let frames = try ConsoleBrowserTests.replay(ConsoleBrowserTests.markup)
            let directory = try TemporaryDirectory.shared.directory("console")
            let passwords = "\(directory)/web-passwords"
            try Tool.run("htpasswd", ["-B", "-b", "-c", passwords, "installer", "aim-it-straight"])
            try Tool.run("htpasswd", ["-B", "-b", passwords, "viewer", "just-looking"])
            let port = Broker.freePort()
            let socket = "\(directory)/scan.sock"
            daemon = try DaemonProcess(
                config: """
                    camera:
                      device: "replay:\(frames)"
                      fps: 15
                    socket:
                      path: \(socket)
                    web:
                      listen: 127.0.0.1:\(port)
                      password_file: \(passwords)
                      control_users: [installer]
                    """, socketPath: socket)
            pos = try daemon.connect()
            #expect(pos.waitFor { $0["type"] as? String == "scan" }.match?["text"] as? String == ConsoleBrowserTests.markup)
            let web = URL(fileURLWithPath: Tool.scannerBinary).deletingLastPathComponent().appendingPathComponent("kiosk-scanner-web").path
            console = try LoggedProcess(web, ["--config", daemon.configPath], logPath: "\(directory)/web.log")
            try Broker.waitForPort(port)
            url = "http://127.0.0.1:\(port)"
        }

        deinit { console.stop() }

        /// A browser signed in as `user`, on the console's page.
        func signIn(_ user: String, _ password: String) throws -> Chromium {
            let browser = try Chromium()
            try browser.navigate("\(url)/")
            #expect(try browser.evaluate("location.pathname") as? String == "/login", "no page without a session")
            try browser.type("#login-user", user)
            try browser.type("#login-password", password)
            try browser.click("#login-submit")
            try browser.waitFor("location.pathname === '/' && document.getElementById('live') !== null")
            return browser
        }
    }

    @Test func theLiveViewShowsTheFrameAndTheCodesTextAsTextAndTheReadIsListed() throws {
        try #require(Chromium.isAvailable, "scripts/setup installs chromium")
        let lane = try Lane()
        let browser = try lane.signIn("installer", "aim-it-straight")
        defer { browser.close() }
        // A frame drawn, and the code in it named as text: its markup escaped in the same item.
        // Asked in one look, since the list is redrawn with every view (a later look can find
        // a view without the code). How soon is not a test's to assert: issue #36's 5 s bound
        // wants a benchmark (console-bench times reads on the socket, not the page).
        try browser.waitFor(
            """
            [...document.querySelectorAll('#live-codes li')].some(li => li.textContent.includes(\(Chromium.jsString(Self.markup)))
              && li.innerHTML.includes('&lt;script&gt;'))
            """, timeout: 20)
        let drawn =
            try browser.evaluate(
                """
                (() => { const c = document.getElementById('live'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                  let dark = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 100) dark++; return [c.width, c.height, dark]; })()
                """) as? [Any]
        let numbers = try #require(drawn?.compactMap { ($0 as? NSNumber)?.intValue })
        #expect(numbers.count == 3 && numbers[0] > 0 && numbers[1] > 0 && numbers[2] > 100, "a frame with a code's dark modules is drawn: \(numbers)")
        // docs/console.png, the README's picture, is this page: KIOSK_CONSOLE_SCREENSHOT=docs/console.png.
        if let path = ProcessInfo.processInfo.environment["KIOSK_CONSOLE_SCREENSHOT"] {
            try browser.waitFor("document.getElementById('health-camera').textContent === 'streaming'")
            try browser.screenshot(path: path)
        }
        // The markup stayed text: no element was made of it, nothing ran.
        #expect(try browser.evaluate("document.querySelectorAll('script').length") as? Int == 1)
        #expect(try browser.evaluate("document.querySelectorAll('img').length") as? Int == 0)
        #expect(browser.dialogs.isEmpty, "\(browser.dialogs)")

        // The next read, delivered to the POS (which reads it), appears in the reads list with its outcome.
        #expect(lane.pos.waitFor(timeout: 20) { $0["type"] as? String == "scan" }.match?["text"] as? String == Self.markup)
        try browser.waitFor(
            "[...document.querySelectorAll('#reads tr')].some(tr => tr.textContent.includes(\(Chromium.jsString(Self.markup))) && tr.textContent.includes('delivered'))",
            timeout: 20)
        #expect(try browser.evaluate("document.querySelectorAll('#reads img, #reads script').length") as? Int == 0)
        #expect(lane.console.waitForLog("signed in: 'installer' from 127.0.0.1"))
        #expect(lane.console.waitForLog("stream started for installer from 127.0.0.1"))
        #expect(lane.daemon.waitForLog("takes camera images: watch (4 fps, 640 px wide)"))
        #expect(browser.consoleMessages.filter { $0.contains("Uncaught") }.isEmpty, "\(browser.consoleMessages)")

        // Someone who may control: torch on, and the daemon's own answer on the page.
        try browser.click("#ctl-torch-on")
        // The click's handler writes "torch-on: ..." and the daemon's answer replaces it; the
        // click can return before the handler ran, while the line is still empty.
        try browser.waitFor("(t => t !== '' && !t.endsWith('...'))(document.getElementById('ctl-result').textContent)")
        let reply = try browser.text("#ctl-result") ?? ""
        #expect(reply.contains("ok"), "\(reply)")
    }

    @Test func aDraggedViewportGivesLinesCheckConfigTakes() throws {
        try #require(Chromium.isAvailable, "scripts/setup installs chromium")
        let lane = try Lane()
        let browser = try lane.signIn("installer", "aim-it-straight")
        defer { browser.close() }
        try browser.waitFor("document.querySelectorAll('#live-codes li').length > 0")
        // A drag across the live image, from a quarter in to three quarters, as a mouse does it.
        let box = try #require(
            try browser.evaluate("(() => { const r = document.getElementById('live').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()")
                as? [Any])
        let rect = box.compactMap { ($0 as? NSNumber)?.doubleValue }
        try #require(rect.count == 4 && rect[2] > 0 && rect[3] > 0)
        let (x0, y0, x1, y1) = (rect[0] + rect[2] * 0.2, rect[1] + rect[3] * 0.25, rect[0] + rect[2] * 0.8, rect[1] + rect[3] * 0.75)
        for (type, x, y) in [("mousePressed", x0, y0), ("mouseMoved", (x0 + x1) / 2, (y0 + y1) / 2), ("mouseMoved", x1, y1), ("mouseReleased", x1, y1)] {
            _ = try browser.call(
                "Input.dispatchMouseEvent", ["type": type, "x": x, "y": y, "button": "left", "buttons": type == "mouseReleased" ? 0 : 1, "clickCount": 1])
        }
        try browser.waitFor("document.getElementById('viewport-verdict').textContent.length > 0")
        let lines = try #require(try browser.text("#viewport-lines"))
        #expect(lines.hasPrefix("viewport:\n  rect: ["), "\(lines)")
        #expect(try browser.text("#viewport-verdict")?.hasPrefix("check-config takes these lines") == true)
        let config = "\(lane.daemon.directory)/with-viewport.conf"
        try (lines + "\n").write(toFile: config, atomically: true, encoding: .utf8)
        let check = try Tool.capture(Tool.scannerBinary, ["check-config", config])
        #expect(check.status == 0, "\(lines)\n\(check.stdout)\(check.stderr)")

        // Typed numbers outside the frame: the same reader as check-config refuses them.
        try browser.type("#vp-x", "0.5")
        try browser.type("#vp-w", "0.75")
        try browser.click("#vp-check")
        try browser.waitFor("document.getElementById('viewport-lines').textContent !== \(Chromium.jsString(lines))")
        let verdict = try browser.text("#viewport-verdict") ?? ""
        #expect(verdict.contains("viewport.rect") && !verdict.hasPrefix("check-config takes"), "\(verdict)")
        let refused = "\(lane.daemon.directory)/outside.conf"
        try ((try browser.text("#viewport-lines") ?? "") + "\n").write(toFile: refused, atomically: true, encoding: .utf8)
        #expect(try Tool.capture(Tool.scannerBinary, ["check-config", refused]).status != 0)
    }

    @Test func aViewerIsRefusedControlByTheDaemonAndAWrongPasswordGetsNothing() throws {
        try #require(Chromium.isAvailable, "scripts/setup installs chromium")
        let lane = try Lane()
        let browser = try lane.signIn("viewer", "just-looking")
        defer { browser.close() }
        try browser.waitFor("document.querySelectorAll('#live-codes li').length > 0")
        try browser.click("#ctl-beep")
        try browser.waitFor("(t => t !== '' && !t.endsWith('...'))(document.getElementById('ctl-result').textContent)")
        let result = try browser.text("#ctl-result") ?? ""
        #expect(result.contains("restricted"), "the daemon's refusal: \(result)")
        #expect(lane.console.waitForLog("control 'beep' from viewer at 127.0.0.1"))
        #expect(lane.daemon.waitForLog("refused: beep (restricted)"), "the daemon refused it, not the console")

        // Another browser, a wrong password: the sign-in form again, no session cookie, logged.
        let stranger = try Chromium()
        defer { stranger.close() }
        try stranger.navigate("\(lane.url)/login")
        try stranger.type("#login-user", "installer")
        try stranger.type("#login-password", "guess")
        try stranger.click("#login-submit")
        try stranger.waitFor("document.getElementById('login-error') && !document.getElementById('login-error').hidden", timeout: 15)
        #expect(try stranger.evaluate("document.getElementById('live')") == nil)
        #expect(try stranger.cookies().isEmpty)
        #expect(lane.console.waitForLog("sign-in failed: 'installer' from 127.0.0.1"))

        // Without a session: no page (the form instead), no API, no stream.
        try stranger.navigate("\(lane.url)/")
        #expect(try stranger.evaluate("location.pathname") as? String == "/login")
        #expect(try stranger.evaluate("fetch('/api/health').then(r => r.status)") as? Int == 401)
        let stream = try stranger.evaluate(
            """
            new Promise(done => { const ws = new WebSocket('ws://' + location.host + '/ws');
              ws.onopen = () => done('open'); ws.onerror = () => done('refused'); })
            """)
        #expect(stream as? String == "refused")

        // Another site, with the signed-in browser's cookie: no CORS header lets its script read.
        try browser.navigate("data:text/html,<title>elsewhere</title>")
        let foreign = try browser.evaluate(
            "fetch(\(Chromium.jsString(lane.url + "/api/health")), {credentials: 'include'}).then(r => 'read ' + r.status, e => 'blocked')")
        #expect(foreign as? String == "blocked")
    }
}
