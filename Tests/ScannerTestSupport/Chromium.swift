// Chromium.swift — a small, synchronous headless-Chromium driver for integration tests.
//
// Chromium is driven through the DevTools protocol over `--remote-debugging-pipe`:
// it reads NUL-terminated JSON messages from fd 3 and writes replies/events to fd 4.
// No WebSocket, no HTTP endpoint, no port to pick. One file, Foundation + Glibc only.
//
//     guard Chromium.isAvailable else { return }          // skip where chromium is absent
//     let browser = try Chromium()
//     defer { browser.close() }
//     try browser.navigate("http://127.0.0.1:8080/")
//     try browser.type("#name", "Ada")
//     try browser.click("#go")
//     let text = try browser.waitFor("document.querySelector('#out').textContent")
//
// Every wait has a timeout and fails with a ChromiumError saying what was last seen
// (and Chromium's stderr tail when the browser died). Nothing sleeps blindly: waits
// block on a condition variable that the reader thread signals, and the few condition
// polls (re-evaluating an expression, waiting for a process to exit) use short intervals.
//
// No process-wide side effects: SIGPIPE is blocked only on the writing thread for the duration
// of a write (a write to a dead browser then fails with EPIPE instead of killing the test
// runner), and Chromium is spawned with an empty signal mask and default dispositions, so
// whatever the test runner's threads block or ignore does not leak into the browser.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Errors

public struct ChromiumError: Error, CustomStringConvertible, LocalizedError {
    public enum Kind: String, Sendable {
        case notInstalled, launch, browserDied, targetGone, timeout, protocolError, javascript, navigation, io
    }
    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "Chromium \(kind.rawValue): \(message)" }
    public var errorDescription: String? { description }
}

// MARK: - Public driver

public final class Chromium: @unchecked Sendable {
    /// Flags for a launch unless `init(arguments:)` replaces them. `--remote-debugging-pipe`,
    /// `--user-data-dir=<fresh temp dir>` and the initial `about:blank` are always added.
    public static let defaultArguments: [String] = [
        "--headless=new",
        "--no-sandbox",  // required as root, and in most containers
        "--disable-gpu",
        "--disable-dev-shm-usage",  // /dev/shm is tiny in many containers
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-component-update",
        "--disable-background-networking",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-breakpad",
        "--password-store=basic",  // never ask a keyring over D-Bus
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        "--disable-hang-monitor",
        "--disable-ipc-flooding-protection",
        "--disable-popup-blocking",
        "--force-color-profile=srgb",
        "--hide-scrollbars",
        "--mute-audio",
        "--window-size=1280,900",
    ]

    /// True when a Chromium executable can be found (see `executablePath`).
    public static var isAvailable: Bool { executablePath != nil }

    /// `$CHROMIUM_PATH` if set, else the first of chromium, chromium-browser, google-chrome,
    /// google-chrome-stable on `$PATH`. Debian's and Ubuntu's `chromium` shell wrapper is
    /// bypassed in favour of the real binary (the wrapper adds flags of its own and forks
    /// `findmnt`/`grep` on every launch).
    public static var executablePath: String? {
        let env = ProcessInfo.processInfo.environment
        if let explicit = env["CHROMIUM_PATH"], !explicit.isEmpty {
            return isExecutableFile(explicit) ? explicit : nil
        }
        let dirs = (env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
            for dir in dirs where !dir.isEmpty {
                let candidate = dir + "/" + name
                guard isExecutableFile(candidate) else { continue }
                if isShellScript(candidate) {
                    for real in ["/usr/lib/chromium/chromium", "/usr/lib/chromium-browser/chromium-browser"]
                    where isExecutableFile(real) {
                        return real
                    }
                }
                return candidate
            }
        }
        return nil
    }

    /// "Chrome/<version>" as reported by Browser.getVersion.
    public let browserVersion: String
    /// Seconds from spawn to a page session with Page/Runtime/Network/Log enabled.
    public let launchDuration: TimeInterval
    public var processID: pid_t { process.pid }
    /// Chromium's stdout+stderr. Lives in the temp dir, so it is removed by `close()`.
    public var stderrPath: String { process.stderrPath }
    /// `[console.type] args`, `[exception] ...`, `[log source/level] ...` and `[dialog type] ...`
    /// lines, oldest first (the last 2,000 are kept).
    public var consoleMessages: [String] { connection.consoleMessages }
    /// JavaScript dialogs (alert/confirm/prompt/beforeunload) that opened; each was accepted
    /// automatically so the page never blocks. A non-empty list usually means injected script ran.
    public var dialogs: [String] { connection.dialogMessages }

    private let process: ChromiumProcess
    private let connection: CDPConnection
    private let sessionId: String
    private let targetId: String
    private let mainFrameId: String
    private let closeLock = NSLock()
    private var isClosed = false

    /// Launches a fresh headless Chromium with its own temporary profile and opens one page.
    /// - Parameters:
    ///   - arguments: replaces `defaultArguments` (e.g. to drop one); `extraArguments` are appended.
    ///   - viewport: CSS pixel size forced with Emulation.setDeviceMetricsOverride, so screenshots
    ///     and layout do not depend on how much of --window-size the headless shell keeps
    ///     (1280x900 gives an 1280x813 viewport without it). nil keeps the window's.
    public init(
        arguments: [String] = Chromium.defaultArguments, extraArguments: [String] = [],
        viewport: (width: Int, height: Int)? = (1280, 900),
        launchTimeout: TimeInterval = 30
    ) throws {
        let started = Date()
        guard let executable = Chromium.executablePath else {
            throw ChromiumError(
                .notInstalled,
                "no Chromium executable found (set CHROMIUM_PATH, or apt-get install chromium); "
                    + "PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? "")")
        }
        let proc = try ChromiumProcess.launch(
            executable: executable,
            arguments: arguments + extraArguments)
        let conn = CDPConnection(
            readFD: proc.cdpRead, writeFD: proc.cdpWrite,
            diagnostics: { proc.diagnostics() })
        conn.start()

        let deadline = started.addingTimeInterval(launchTimeout)
        func remaining() -> TimeInterval { max(0.05, deadline.timeIntervalSinceNow) }
        do {
            let version = try conn.call("Browser.getVersion", timeout: remaining())
            let created = try conn.call("Target.createTarget", ["url": "about:blank"], timeout: remaining())
            guard let target = created["targetId"] as? String else {
                throw ChromiumError(.protocolError, "Target.createTarget returned no targetId: \(created)")
            }
            let attached = try conn.call(
                "Target.attachToTarget", ["targetId": target, "flatten": true],
                timeout: remaining())
            guard let session = attached["sessionId"] as? String else {
                throw ChromiumError(.protocolError, "Target.attachToTarget returned no sessionId: \(attached)")
            }
            var setup: [(String, [String: Any])] = [
                ("Page.enable", [:]),
                ("Page.setLifecycleEventsEnabled", ["enabled": true]),
                ("Runtime.enable", [:]),
                ("Network.enable", [:]),
                ("Log.enable", [:]),
            ]
            if let viewport {
                setup.append(
                    (
                        "Emulation.setDeviceMetricsOverride",
                        [
                            "width": viewport.width, "height": viewport.height,
                            "deviceScaleFactor": 1, "mobile": false,
                        ]
                    ))
            }
            for (method, params) in setup {
                _ = try conn.call(method, params, sessionId: session, timeout: remaining())
            }
            let tree = try conn.call("Page.getFrameTree", sessionId: session, timeout: remaining())
            // The tab opened for about:blank at startup only costs a renderer: close it.
            let targets =
                try conn.call("Target.getTargets", timeout: remaining())["targetInfos"]
                as? [[String: Any]] ?? []
            for info in targets where info["type"] as? String == "page" && info["targetId"] as? String != target {
                if let other = info["targetId"] as? String {
                    _ = try? conn.call("Target.closeTarget", ["targetId": other], timeout: remaining())
                }
            }
            let frame = (tree["frameTree"] as? [String: Any])?["frame"] as? [String: Any]

            browserVersion = version["product"] as? String ?? "unknown"
            targetId = target
            sessionId = session
            mainFrameId = frame?["id"] as? String ?? target
        } catch {
            var message = "could not start \(executable) within \(launchTimeout)s: \(error)"
            if (error as? ChromiumError)?.kind != .browserDied { message += "\n" + proc.diagnostics() }
            Chromium.teardown(proc, conn)
            throw ChromiumError(.launch, message)
        }
        process = proc
        connection = conn
        launchDuration = Date().timeIntervalSince(started)
    }

    deinit { close() }

    /// Kills Chromium's whole process group, reaps it, stops the reader and removes the temp dir.
    /// Idempotent; also called by deinit.
    public func close() {
        closeLock.lock()
        let already = isClosed
        isClosed = true
        closeLock.unlock()
        if !already { Chromium.teardown(process, connection) }
    }

    private static func teardown(_ proc: ChromiumProcess, _ conn: CDPConnection) {
        // The profile is thrown away, so a graceful Browser.close buys nothing; SIGKILL to the
        // process group (browser, zygotes, renderers, utilities) is immediate and cannot hang.
        proc.terminate()
        conn.shutdown()
        proc.removeTempDir()
    }

    // MARK: Raw protocol

    /// Sends a CDP command to the page session (or to the browser with `browserLevel: true`)
    /// and returns its `result`.
    @discardableResult
    public func call(
        _ method: String, _ params: [String: Any] = [:], browserLevel: Bool = false,
        timeout: TimeInterval = 30
    ) throws -> [String: Any] {
        try connection.call(method, params, sessionId: browserLevel ? nil : sessionId, timeout: timeout)
    }

    // MARK: Navigation

    /// Navigates the page and waits for its load event. Returns the HTTP status of the main
    /// document when known (so a 404 page is a successful navigation that returns 404).
    /// Throws on network errors (net::ERR_...) and on timeout.
    @discardableResult
    public func navigate(_ url: String, timeout: TimeInterval = 15) throws -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        func remaining() -> TimeInterval { max(0.05, deadline.timeIntervalSinceNow) }
        let mark = connection.eventMark()
        let result: [String: Any]
        do {
            result = try call("Page.navigate", ["url": url], timeout: remaining())
        } catch let error as ChromiumError where error.kind == .timeout {
            throw ChromiumError(
                .timeout,
                "navigate(\(url)): no response committed within \(timeout)s "
                    + "(server not answering?)\(recentConsole())")
        }
        if let errorText = result["errorText"] as? String, !errorText.isEmpty {
            throw ChromiumError(.navigation, "navigate(\(url)) failed: \(errorText)")
        }
        guard let loaderId = result["loaderId"] as? String else {
            // Same-document navigation (fragment change): there is no new load event.
            _ = try waitFor("document.readyState === 'complete'", timeout: remaining())
            return nil
        }
        var seen: [String] = []
        var committed = false
        let frameId = mainFrameId
        let loaded = try connection.waitForEvent(after: mark, sessionId: sessionId, timeout: remaining()) { event in
            switch event.method {
            case "Page.lifecycleEvent":
                guard event.params["frameId"] as? String == frameId else { return false }
                let name = event.params["name"] as? String ?? "?"
                let sameLoader = event.params["loaderId"] as? String == loaderId
                seen.append(sameLoader ? name : "\(name)(earlier document)")
                return sameLoader && name == "load"
            case "Page.frameNavigated":
                let frame = event.params["frame"] as? [String: Any]
                if frame?["id"] as? String == frameId, frame?["loaderId"] as? String == loaderId {
                    committed = true
                    seen.append("frameNavigated(\(frame?["url"] as? String ?? "?"))")
                }
                return false
            case "Page.loadEventFired":
                seen.append("loadEventFired")
                return committed
            default:
                return false
            }
        }
        guard loaded != nil else {
            let state =
                (try? evaluate("document.readyState + ' at ' + location.href", timeout: 1))
                .flatMap { $0 as? String } ?? "unavailable"
            throw ChromiumError(
                .timeout,
                "navigate(\(url)) did not finish loading within \(timeout)s; "
                    + "events seen: \(seen.isEmpty ? "none" : seen.joined(separator: ", ")); "
                    + "document: \(state)\(recentConsole())")
        }
        let response = connection.findEvent(after: mark, sessionId: sessionId) { event in
            event.method == "Network.responseReceived"
                && event.params["loaderId"] as? String == loaderId
                && event.params["type"] as? String == "Document"
        }
        return ((response?.params["response"] as? [String: Any])?["status"] as? NSNumber)?.intValue
    }

    // MARK: JavaScript

    /// Evaluates `expression` in the page (promises are awaited) and returns its JSON value:
    /// String, NSNumber/Int/Double, Bool, [Any], [String: Any], or nil for null/undefined.
    /// Throws `.javascript` with the exception's message if it throws or rejects.
    public func evaluate(_ expression: String, timeout: TimeInterval = 10) throws -> Any? {
        let result = try call(
            "Runtime.evaluate",
            [
                "expression": expression, "returnByValue": true, "awaitPromise": true,
                "userGesture": true,
            ],
            timeout: timeout)
        if let details = result["exceptionDetails"] as? [String: Any] {
            throw ChromiumError(
                .javascript,
                "evaluating `\(Chromium.abbreviate(expression))` threw: "
                    + Chromium.exceptionMessage(details))
        }
        return Chromium.value(of: result["result"] as? [String: Any] ?? [:])
    }

    /// Re-evaluates `expression` (every 50 ms) until it is truthy in the JavaScript sense and
    /// returns that value. Exceptions and navigations in between count as "not yet".
    @discardableResult
    public func waitFor(_ expression: String, timeout: TimeInterval = 10) throws -> Any? {
        let deadline = Date().addingTimeInterval(timeout)
        var lastSeen = "nothing yet"
        var attempts = 0
        while true {
            attempts += 1
            let budget = min(5, max(0.05, deadline.timeIntervalSinceNow))
            do {
                let value = try evaluate(expression, timeout: budget)
                if Chromium.isTruthy(value) { return value }
                lastSeen = "value " + Chromium.describe(value)
            } catch let error as ChromiumError where error.kind == .browserDied || error.kind == .targetGone {
                throw error
            } catch {
                lastSeen = "error \(error)"
            }
            if Date() >= deadline {
                throw ChromiumError(
                    .timeout,
                    "waitFor(`\(Chromium.abbreviate(expression))`) not truthy within \(timeout)s "
                        + "(\(attempts) evaluations); last: \(lastSeen)\(recentConsole())")
            }
            try connection.pause(min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
    }

    /// `document.querySelector(selector)?.textContent`, or nil when there is no such element.
    public func text(_ selector: String) throws -> String? {
        try evaluate("document.querySelector(\(Chromium.jsString(selector)))?.textContent ?? null") as? String
    }

    // MARK: Input

    /// Waits until `selector` matches a visible, enabled element that is not covered by
    /// another one and whose box held still over two animation frames, scrolls it into view and
    /// clicks its centre with real mouse events. Throws when the click reached another element
    /// (the page moved between the probe and the click), so a test never waits on a click that
    /// went elsewhere. A click that loaded another page counts as reaching its element.
    public func click(_ selector: String, timeout: TimeInterval = 10) throws {
        let probe = """
            (async () => {
              const el = document.querySelector(\(Chromium.jsString(selector)));
              if (!el) return 'no element matches';
              if (!el.isConnected) return 'element is detached';
              if (el.disabled === true) return 'element is disabled';
              el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
              const before = el.getBoundingClientRect();
              await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
              const r = el.getBoundingClientRect();
              if (r.width === 0 || r.height === 0) return 'element has zero size';
              if (r.left !== before.left || r.top !== before.top || r.width !== before.width || r.height !== before.height)
                return 'element is moving';
              const style = getComputedStyle(el);
              if (style.visibility === 'hidden' || style.pointerEvents === 'none')
                return 'element is ' + (style.visibility === 'hidden' ? 'hidden' : 'pointer-events: none');
              const x = r.left + r.width / 2, y = r.top + r.height / 2;
              const hit = document.elementFromPoint(x, y);
              if (!hit) return 'centre (' + x + ',' + y + ') is outside the viewport';
              if (hit !== el && !el.contains(hit))
                return 'covered by <' + hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '') + '>';
              window.__clickReached = false;
              el.addEventListener('click', () => { window.__clickReached = true; }, {once: true, capture: true});
              return {x, y};
            })()
            """
        let point = try waitUntil("click(\(selector))", timeout: timeout) { () -> (Double, Double)? in
            let value = try self.evaluate(probe, timeout: 5)
            if let p = value as? [String: Any], let x = (p["x"] as? NSNumber)?.doubleValue,
                let y = (p["y"] as? NSNumber)?.doubleValue
            {
                return (x, y)
            }
            throw ChromiumError(.javascript, value as? String ?? Chromium.describe(value))
        }
        for (type, extra) in [
            ("mouseMoved", [String: Any]()),
            ("mousePressed", ["button": "left", "buttons": 1, "clickCount": 1]),
            ("mouseReleased", ["button": "left", "buttons": 0, "clickCount": 1]),
        ] {
            var params: [String: Any] = ["type": type, "x": point.0, "y": point.1]
            params.merge(extra) { $1 }
            try call("Input.dispatchMouseEvent", params, timeout: 10)
        }
        // A page the click navigated away from took it; a page still here must have seen it.
        if try evaluate("window.__clickReached ?? 'navigated'") as? Bool == false {
            throw ChromiumError(.javascript, "click(\(selector)) at (\(point.0), \(point.1)) reached another element: the page moved")
        }
    }

    /// Focuses the element, replaces its value with `text` through the native value setter
    /// (so framework-controlled inputs notice) and dispatches `input` and `change` events.
    /// Works for input, textarea, select and contenteditable elements.
    public func type(_ selector: String, _ text: String, timeout: TimeInterval = 10) throws {
        let script = """
            (() => {
              const el = document.querySelector(\(Chromium.jsString(selector)));
              if (!el) return 'no element matches';
              if (el.disabled === true) return 'element is disabled';
              if (el.readOnly === true) return 'element is read-only';
              const text = \(Chromium.jsString(text));
              el.focus();
              if (el.isContentEditable) {
                el.textContent = text;
              } else {
                let proto = Object.getPrototypeOf(el), setter;
                while (proto && !setter) {
                  setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
                  proto = Object.getPrototypeOf(proto);
                }
                if (!setter) return 'element has no value property';
                setter.call(el, text);
              }
              el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText', data: text}));
              el.dispatchEvent(new Event('change', {bubbles: true}));
              return true;
            })()
            """
        _ = try waitUntil("type(\(selector))", timeout: timeout) { () -> Bool? in
            let value = try self.evaluate(script, timeout: 5)
            if value as? Bool == true { return true }
            throw ChromiumError(.javascript, value as? String ?? Chromium.describe(value))
        }
    }

    // MARK: Output

    /// Saves a PNG of the viewport.
    public func screenshot(path: String, timeout: TimeInterval = 30) throws {
        let result = try call("Page.captureScreenshot", ["format": "png"], timeout: timeout)
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw ChromiumError(.protocolError, "Page.captureScreenshot returned no image data")
        }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ChromiumError(.io, "could not write screenshot to \(path): \(error)")
        }
    }

    /// Network.getCookies: the cookies visible to the current page (or to `urls`).
    public func cookies(urls: [String]? = nil) throws -> [[String: Any]] {
        var params: [String: Any] = [:]
        if let urls { params["urls"] = urls }
        return try call("Network.getCookies", params)["cookies"] as? [[String: Any]] ?? []
    }

    /// The last lines of Chromium's stderr (D-Bus noise filtered out).
    public func stderrTail(lines: Int = 30) -> String { process.stderrTail(lines: lines) }

    // MARK: Helpers

    /// Runs `attempt` until it returns non-nil; errors count as "not yet" and are reported.
    private func waitUntil<T>(_ what: String, timeout: TimeInterval, _ attempt: () throws -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        var lastSeen = "nothing yet"
        while true {
            do {
                if let value = try attempt() { return value }
            } catch let error as ChromiumError where error.kind == .browserDied || error.kind == .targetGone {
                throw error
            } catch let error as ChromiumError {
                lastSeen = error.message
            } catch {
                lastSeen = "\(error)"
            }
            if Date() >= deadline {
                throw ChromiumError(.timeout, "\(what) gave up after \(timeout)s; last: \(lastSeen)\(recentConsole())")
            }
            try connection.pause(min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
    }

    private func recentConsole() -> String {
        let messages = consoleMessages.suffix(5)
        return messages.isEmpty ? "" : "; recent console: " + messages.joined(separator: " | ")
    }

    /// `string` as a JavaScript string literal (quoted and escaped), for building expressions.
    public static func jsString(_ string: String) -> String {
        // JSON string literals are valid JavaScript string literals.
        guard let data = try? JSONSerialization.data(withJSONObject: [string]),
            let array = String(data: data, encoding: .utf8)
        else { return "\"\"" }
        return String(array.dropFirst().dropLast())
    }

    static func abbreviate(_ text: String, limit: Int = 120) -> String {
        let flat = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        return flat.count <= limit ? flat : String(flat.prefix(limit)) + "…"
    }

    static func value(of remote: [String: Any]) -> Any? {
        if let unserializable = remote["unserializableValue"] as? String {
            switch unserializable {
            case "NaN": return Double.nan
            case "Infinity": return Double.infinity
            case "-Infinity": return -Double.infinity
            case "-0": return -0.0
            default: return unserializable  // BigInt, e.g. "12n"
            }
        }
        guard let value = remote["value"], !(value is NSNull) else { return nil }
        return value
    }

    static func isTruthy(_ value: Any?) -> Bool {
        switch value {
        case nil: return false
        case let b as Bool: return b
        case let s as String: return !s.isEmpty
        case let n as NSNumber: return !(n.doubleValue == 0 || n.doubleValue.isNaN)
        case let d as Double: return !(d == 0 || d.isNaN)
        case let i as Int: return i != 0
        default: return true  // objects and arrays
        }
    }

    static func describe(_ value: Any?) -> String {
        guard let value else { return "null/undefined" }
        if let s = value as? String { return jsString(abbreviate(s, limit: 200)) }
        // Wrapped in an array so scalars serialise too (and NSNumber booleans print as true/false).
        if JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(withJSONObject: [value]),
            let text = String(data: data, encoding: .utf8)
        {
            return abbreviate(String(text.dropFirst().dropLast()), limit: 200)
        }
        return abbreviate("\(value)", limit: 200)
    }

    static func exceptionMessage(_ details: [String: Any]) -> String {
        let exception = details["exception"] as? [String: Any]
        var message =
            exception?["description"] as? String
            ?? (exception?["value"]).map { "\($0)" }
            ?? details["text"] as? String
            ?? "unknown exception"
        if let line = details["lineNumber"] as? Int, let column = details["columnNumber"] as? Int,
            exception?["description"] == nil
        {
            message += " (line \(line + 1), column \(column + 1))"
        }
        return message
    }
}

private func isExecutableFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
}

/// A pipe whose ends are FD_CLOEXEC from the start (pipe2) and, when `minFD` > 0, live at
/// fds >= minFD. Returns nil and leaves errno set on failure.
private func cloexecPipe(minFD: Int32 = 0) -> (read: Int32, write: Int32)? {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    var fds: [Int32] = [-1, -1]
    var rc: Int32 = -1
    withGNUSymbol("pipe2", as: Pipe2.self) { pipe2 in
        if let pipe2 {
            rc = pipe2(&fds, O_CLOEXEC)
        } else if pipe(&fds) == 0 {  // not reachable on glibc; small inheritance window
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            rc = 0
        }
    }
    guard rc == 0 else { return nil }
    guard minFD > 0 else { return (fds[0], fds[1]) }
    let r = fcntl(fds[0], F_DUPFD_CLOEXEC, minFD)
    let w = fcntl(fds[1], F_DUPFD_CLOEXEC, minFD)
    let saved = errno
    close(fds[0])
    close(fds[1])
    guard r >= 0, w >= 0 else {
        if r >= 0 { close(r) }
        if w >= 0 { close(w) }
        errno = saved
        return nil
    }
    return (r, w)
}

private func isShellScript(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return handle.readData(ofLength: 2) == Data("#!".utf8)
}

// MARK: - Process

/// The spawned browser: pid (also its process-group id), pipe ends, temp dir, stderr log.
final class ChromiumProcess: @unchecked Sendable {
    let pid: pid_t
    let tempDir: String
    let stderrPath: String
    /// Parent's ends: replies/events come in on `cdpRead`, commands go out on `cdpWrite`.
    let cdpRead: Int32
    let cdpWrite: Int32

    private let lock = NSLock()
    private var reaped = false
    private var exitStatus: String?

    private init(pid: pid_t, tempDir: String, stderrPath: String, cdpRead: Int32, cdpWrite: Int32) {
        self.pid = pid
        self.tempDir = tempDir
        self.stderrPath = stderrPath
        self.cdpRead = cdpRead
        self.cdpWrite = cdpWrite
    }

    static func launch(executable: String, arguments: [String]) throws -> ChromiumProcess {
        let tmp = scratchRoot()
        sweepStaleTempDirs(in: tmp)
        let prefix = "swift-chromium-\(getpid())-"
        var template = Array((tmp as NSString).appendingPathComponent(prefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ChromiumError(.launch, "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        let tempDir = String(cString: made)
        let profile = tempDir + "/profile"
        let chromeTmp = tempDir + "/tmp"  // Chromium's TMPDIR: its SingletonSocket dir goes here
        let stderrPath = tempDir + "/chromium.log"
        func fail(_ what: String) -> ChromiumError {
            let error = ChromiumError(.launch, "\(what): \(String(cString: strerror(errno)))")
            try? FileManager.default.removeItem(atPath: tempDir)
            return error
        }
        guard mkdir(profile, 0o700) == 0, mkdir(chromeTmp, 0o700) == 0 else { throw fail("mkdir in \(tempDir)") }

        // Two pipes, each end moved to an fd >= 10 with FD_CLOEXEC: nothing else this process
        // spawns inherits them, and the dup2s to 3 and 4 below cannot clobber each other.
        guard let toChrome = cloexecPipe(minFD: 10) else { throw fail("pipe") }  // Chromium reads it as fd 3
        guard let fromChrome = cloexecPipe(minFD: 10) else {  // Chromium writes it as fd 4
            close(toChrome.read)
            close(toChrome.write)
            throw fail("pipe")
        }
        func closeAll() {
            for fd in [toChrome.read, toChrome.write, fromChrome.read, fromChrome.write] { close(fd) }
        }

        let argv = arguments + ["--remote-debugging-pipe", "--user-data-dir=\(profile)", "about:blank"]
        // A private TMPDIR: the process-singleton socket dir Chromium makes there is otherwise
        // left behind in /tmp on every kill (org.chromium.Chromium.XXXXXX).
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = chromeTmp
        let pid: pid_t
        do {
            // Its own process group, so close() can kill all helpers.
            pid = try spawn(executable, argv, environment: environment, firstClosed: 5, ownProcessGroup: true) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                posix_spawn_file_actions_adddup2(&actions, 2, 1)
                posix_spawn_file_actions_adddup2(&actions, toChrome.read, 3)
                posix_spawn_file_actions_adddup2(&actions, fromChrome.write, 4)
            }
        } catch {
            closeAll()
            try? FileManager.default.removeItem(atPath: tempDir)
            throw ChromiumError(.launch, "\(error)")
        }
        close(toChrome.read)
        close(fromChrome.write)
        // Our write end is non-blocking so a stalled browser turns into a timeout, not a hang.
        _ = fcntl(toChrome.write, F_SETFL, fcntl(toChrome.write, F_GETFL) | O_NONBLOCK)
        return ChromiumProcess(
            pid: pid, tempDir: tempDir, stderrPath: stderrPath,
            cdpRead: fromChrome.read, cdpWrite: toChrome.write)
    }

    /// `$CHROMIUM_TMPDIR`, else /dev/shm when it is a roomy tmpfs (the profile is ~200 files;
    /// creating and deleting them on a busy disk cost up to 0.4 s per close), else `$TMPDIR` or /tmp.
    private static func scratchRoot() -> String {
        if let explicit = ProcessInfo.processInfo.environment["CHROMIUM_TMPDIR"], !explicit.isEmpty {
            return explicit
        }
        var fs = statvfs()
        if statvfs("/dev/shm", &fs) == 0, UInt64(fs.f_bavail) * UInt64(fs.f_frsize) >= 1 << 30,
            access("/dev/shm", W_OK) == 0
        {
            return "/dev/shm"
        }
        return NSTemporaryDirectory()
    }

    /// Removes temp dirs left by test processes that died without running close()
    /// (Chromium itself exits on its own when the pipe's other end goes away).
    private static func sweepStaleTempDirs(in tmp: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: tmp) else { return }
        for entry in entries where entry.hasPrefix("swift-chromium-") {
            let fields = entry.split(separator: "-")
            guard fields.count == 4, let owner = pid_t(fields[2]) else { continue }
            if kill(owner, 0) == -1 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: (tmp as NSString).appendingPathComponent(entry))
            }
        }
    }

    /// "exited with status N" / "killed by signal N" without reaping (so the pid, and with it
    /// the process-group id, stays ours), or nil while it runs.
    func peekExit() -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var info = siginfo_t()
        let rc = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        if rc == -1 && errno == ECHILD {
            exitStatus = "exited (reaped elsewhere)"
        } else if rc == 0 && info.si_signo == SIGCHLD {
            let status = info._sifields._sigchld.si_status
            exitStatus = info.si_code == CLD_EXITED ? "exited with status \(status)" : "killed by signal \(status)"
        }
        return exitStatus
    }

    /// Waits up to `timeout` for the browser to exit (without reaping it).
    func waitForExit(timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = peekExit() { return status }
            if Date() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// SIGKILLs the whole process group, then reaps the browser.
    func terminate() {
        lock.lock()
        let alreadyReaped = reaped
        lock.unlock()
        if alreadyReaped { return }
        _ = kill(-pid, SIGKILL)  // the unreaped leader keeps the group id ours
        let deadline = Date().addingTimeInterval(10)
        var status: Int32 = 0
        while true {
            let rc = waitpid(pid, &status, WNOHANG)
            if rc == pid || (rc == -1 && errno != EINTR) { break }
            if Date() >= deadline { break }  // never hang a test run on an unkillable process
            usleep(2_000)
        }
        lock.lock()
        reaped = true
        if exitStatus == nil { exitStatus = "killed by close()" }
        lock.unlock()
    }

    func removeTempDir() {
        for attempt in 0..<5 {
            do {
                try FileManager.default.removeItem(atPath: tempDir)
                return
            } catch {
                if !FileManager.default.fileExists(atPath: tempDir) { return }
                usleep(useconds_t(20_000 * (attempt + 1)))  // a helper was still dying
            }
        }
    }

    func stderrTail(lines: Int = 30) -> String {
        guard let handle = FileHandle(forReadingAtPath: stderrPath) else { return "(no stderr log)" }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        let start = size > 32_768 ? size - 32_768 : 0
        try? handle.seek(toOffset: start)
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let useful = text.split(separator: "\n").filter {
            !$0.contains("dbus/") && !$0.contains("Failed to connect to the bus")
        }
        return useful.suffix(lines).joined(separator: "\n")
    }

    func diagnostics() -> String {
        let status = waitForExit(timeout: 1) ?? "still running"
        let tail = stderrTail()
        return "Chromium pid \(pid) \(status); stderr tail:\n" + (tail.isEmpty ? "(empty)" : tail)
    }
}

// MARK: - Connection

/// The CDP pipe: a reader thread splits fd 4's stream on NUL bytes, hands replies to the
/// waiting caller by id and keeps recent events; writers serialise on a lock.
final class CDPConnection: @unchecked Sendable {
    struct Event {
        let seq: Int
        let method: String
        let sessionId: String?
        let params: [String: Any]
    }

    private let readFD: Int32
    private let writeFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let diagnostics: @Sendable () -> String
    private let condition = NSCondition()
    private let writeLock = NSLock()

    // Guarded by `condition`.
    private var nextId = 1
    private var pending: Set<Int> = []
    private var replies: [Int: [String: Any]] = [:]
    private var events: [Event] = []
    private var lastSeq = 0
    private var deadReason: String?
    private var sessionFailures: [String: String] = [:]
    private var console: [String] = []
    private var dialogs: [String] = []
    private var readerFinished = false
    private var shutDown = false

    private static let keptEvents = 2_000
    private static let keptMessages = 2_000

    init(readFD: Int32, writeFD: Int32, diagnostics: @escaping @Sendable () -> String) {
        self.readFD = readFD
        self.writeFD = writeFD
        self.diagnostics = diagnostics
        let wake = cloexecPipe()
        wakeRead = wake?.read ?? -1
        wakeWrite = wake?.write ?? -1
    }

    func start() {
        let thread = Thread { [self] in self.readLoop() }
        thread.name = "chromium-cdp-reader"
        thread.start()
    }

    var consoleMessages: [String] {
        condition.lock()
        defer { condition.unlock() }
        return console
    }

    var dialogMessages: [String] {
        condition.lock()
        defer { condition.unlock() }
        return dialogs
    }

    // MARK: Sending

    @discardableResult
    func send(
        _ method: String, _ params: [String: Any], sessionId: String?, expectReply: Bool,
        timeout: TimeInterval
    ) throws -> Int {
        condition.lock()
        if let reason = deadReason ?? (shutDown ? "connection closed" : nil) {
            condition.unlock()
            throw died(reason)
        }
        let id = nextId
        nextId += 1
        if expectReply { pending.insert(id) }
        condition.unlock()

        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let sessionId { message["sessionId"] = sessionId }
        do {
            var bytes = try JSONSerialization.data(withJSONObject: message)
            bytes.append(0)
            try write(bytes, timeout: timeout)
        } catch {
            condition.lock()
            pending.remove(id)
            condition.unlock()
            if let error = error as? ChromiumError { throw error }
            throw ChromiumError(.protocolError, "cannot encode \(method) params: \(error)")
        }
        return id
    }

    func call(
        _ method: String, _ params: [String: Any] = [:], sessionId: String? = nil,
        timeout: TimeInterval
    ) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        let id = try send(method, params, sessionId: sessionId, expectReply: true, timeout: timeout)
        condition.lock()
        while true {
            if let reply = replies.removeValue(forKey: id) {
                pending.remove(id)
                condition.unlock()
                if let error = reply["error"] as? [String: Any] {
                    let text = error["message"] as? String ?? "unknown error"
                    let data = (error["data"] as? String).map { " (\($0))" } ?? ""
                    let code = (error["code"] as? NSNumber).map { " [code \($0)]" } ?? ""
                    throw ChromiumError(.protocolError, "\(method) failed: \(text)\(data)\(code)")
                }
                return reply["result"] as? [String: Any] ?? [:]
            }
            if let reason = deadReason {
                pending.remove(id)
                condition.unlock()
                throw died("\(reason) while waiting for \(method)")
            }
            if let sessionId, let failure = sessionFailures[sessionId] {
                pending.remove(id)
                condition.unlock()
                throw ChromiumError(.targetGone, "page \(failure) while waiting for \(method)")
            }
            if Date() >= deadline {
                pending.remove(id)
                condition.unlock()
                throw ChromiumError(.timeout, "no reply to \(method) within \(timeout)s")
            }
            _ = condition.wait(until: deadline)
        }
    }

    private func write(_ data: Data, timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        writeLock.lock()
        defer { writeLock.unlock() }
        // Block SIGPIPE on this thread only; on EPIPE, consume the pending signal before unblocking.
        var sigpipe = sigset_t()
        sigemptyset(&sigpipe)
        sigaddset(&sigpipe, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &sigpipe, &previousMask)
        var brokenPipe = false
        defer {
            if brokenPipe {
                var noWait = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&sigpipe, nil, &noWait) == SIGPIPE {}
            }
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
        var offset = 0
        var failure: String?
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            while offset < buffer.count {
                let n = Glibc.write(writeFD, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                    continue
                }
                let err = errno
                if n < 0 && err == EINTR { continue }
                if n < 0 && err == EAGAIN {
                    let ms = Int32(max(0, min(1_000, deadline.timeIntervalSinceNow * 1000)))
                    if ms == 0 && Date() >= deadline {
                        failure = "write to the DevTools pipe timed out after \(timeout)s (browser not reading)"
                        return
                    }
                    var pfd = pollfd(fd: writeFD, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&pfd, 1, ms)
                    continue
                }
                brokenPipe = err == EPIPE
                failure = "write to the DevTools pipe failed: \(String(cString: strerror(err)))"
                return
            }
        }
        if let failure {
            // A partial message would desynchronise the stream: the connection is unusable now.
            if offset > 0 { markDead(failure) }
            throw died(failure)
        }
    }

    // MARK: Waiting

    /// Sequence number of the newest event; pass it to `waitForEvent(after:)` to see only later ones.
    func eventMark() -> Int {
        condition.lock()
        defer { condition.unlock() }
        return lastSeq
    }

    /// Waits for the first event after `mark` (of `sessionId`, or browser-level when nil) that
    /// satisfies `predicate`. Returns nil on timeout; throws when the browser or page is gone.
    func waitForEvent(
        after mark: Int, sessionId: String?, timeout: TimeInterval,
        where predicate: (Event) -> Bool
    ) throws -> Event? {
        let deadline = Date().addingTimeInterval(timeout)
        var cursor = mark
        condition.lock()
        while true {
            let start = max(0, cursor - (events.first?.seq ?? 1) + 1)
            if start < events.count {
                for event in events[start...] where event.sessionId == sessionId {
                    if predicate(event) {
                        condition.unlock()
                        return event
                    }
                }
                cursor = events[events.count - 1].seq
            }
            if let reason = deadReason {
                condition.unlock()
                throw died(reason)
            }
            if let sessionId, let failure = sessionFailures[sessionId] {
                condition.unlock()
                throw ChromiumError(.targetGone, "page \(failure)")
            }
            if Date() >= deadline {
                condition.unlock()
                return nil
            }
            _ = condition.wait(until: deadline)
        }
    }

    func findEvent(after mark: Int, sessionId: String?, where predicate: (Event) -> Bool) -> Event? {
        condition.lock()
        defer { condition.unlock() }
        return events.first { $0.seq > mark && $0.sessionId == sessionId && predicate($0) }
    }

    /// Waits `seconds`, returning early (by throwing) only if the browser dies meanwhile.
    func pause(_ seconds: TimeInterval) throws {
        let until = Date().addingTimeInterval(seconds)
        condition.lock()
        while deadReason == nil && Date() < until {
            _ = condition.wait(until: until)
        }
        let reason = deadReason
        condition.unlock()
        if let reason { throw died(reason) }
    }

    private func died(_ reason: String) -> ChromiumError {
        ChromiumError(.browserDied, reason + "\n" + diagnostics())
    }

    private func markDead(_ reason: String) {
        condition.lock()
        if deadReason == nil { deadReason = reason }
        condition.broadcast()
        condition.unlock()
    }

    // MARK: Shutdown

    /// Stops the reader thread and closes the pipes. Call after the browser is killed.
    func shutdown() {
        condition.lock()
        let already = shutDown
        shutDown = true
        if deadReason == nil { deadReason = "connection closed by close()" }
        condition.broadcast()
        condition.unlock()
        if already { return }
        if wakeWrite >= 0 {
            var byte: UInt8 = 1
            _ = Glibc.write(wakeWrite, &byte, 1)
        }
        let deadline = Date().addingTimeInterval(5)
        condition.lock()
        while !readerFinished && Date() < deadline { _ = condition.wait(until: deadline) }
        let finished = readerFinished
        condition.unlock()
        writeLock.lock()
        close(writeFD)
        writeLock.unlock()
        // Only close what the reader polls once it has stopped; otherwise leak rather than race.
        if finished {
            if wakeRead >= 0 { close(wakeRead) }
            if wakeWrite >= 0 { close(wakeWrite) }
        }
    }

    // MARK: Reading

    private func readLoop() {
        var buffer = [UInt8]()
        var scanned = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var reason = "Chromium closed the DevTools pipe"
        loop: while true {
            var fds = [
                pollfd(fd: readFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, wakeRead >= 0 ? 2 : 1, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                reason = "poll on the DevTools pipe failed: \(String(cString: strerror(errno)))"
                break
            }
            if wakeRead >= 0 && fds[1].revents != 0 {
                reason = "connection closed by close()"
                break
            }
            if fds[0].revents == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                reason = "read from the DevTools pipe failed: \(String(cString: strerror(errno)))"
                break
            }
            if n == 0 { break loop }
            buffer.append(contentsOf: chunk[0..<n])
            var consumed = 0
            var index = scanned
            while index < buffer.count {
                if buffer[index] == 0 {
                    handle(buffer[consumed..<index])
                    consumed = index + 1
                }
                index += 1
            }
            if consumed > 0 { buffer.removeFirst(consumed) }
            scanned = buffer.count
        }
        close(readFD)
        condition.lock()
        if deadReason == nil { deadReason = reason }
        readerFinished = true
        condition.broadcast()
        condition.unlock()
    }

    private func handle(_ bytes: ArraySlice<UInt8>) {
        guard let message = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            condition.lock()
            appendConsole("[driver] unparseable CDP message: " + String(decoding: bytes.prefix(200), as: UTF8.self))
            condition.unlock()
            return
        }
        if let id = (message["id"] as? NSNumber)?.intValue {
            condition.lock()
            if pending.contains(id) {
                replies[id] = message
                condition.broadcast()
            }
            condition.unlock()
            return
        }
        guard let method = message["method"] as? String else { return }
        let sessionId = message["sessionId"] as? String
        let params = message["params"] as? [String: Any] ?? [:]
        var autoReply: (String, [String: Any])?

        condition.lock()
        switch method {
        case "Runtime.consoleAPICalled":
            let args = (params["args"] as? [[String: Any]] ?? []).map(CDPConnection.render)
            appendConsole("[\(params["type"] as? String ?? "log")] " + args.joined(separator: " "))
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"] as? [String: Any] ?? [:]
            var text = Chromium.exceptionMessage(details)
            if let url = details["url"] as? String, let line = (details["lineNumber"] as? NSNumber)?.intValue {
                text += " (\(url):\(line + 1))"
            }
            appendConsole("[exception] " + text)
        case "Log.entryAdded":
            let entry = params["entry"] as? [String: Any] ?? [:]
            let url = (entry["url"] as? String).map { " (\($0))" } ?? ""
            appendConsole(
                "[log \(entry["source"] as? String ?? "?")/\(entry["level"] as? String ?? "?")] "
                    + (entry["text"] as? String ?? "") + url)
        case "Page.javascriptDialogOpening":
            let line = "[dialog \(params["type"] as? String ?? "?")] \(params["message"] as? String ?? "")"
            appendConsole(line)
            dialogs.append(line)
            autoReply = ("Page.handleJavaScriptDialog", ["accept": true])
        case "Inspector.targetCrashed":
            if let sessionId { sessionFailures[sessionId] = "crashed (renderer process died)" }
        case "Inspector.detached":
            if let sessionId { sessionFailures[sessionId] = "detached: \(params["reason"] as? String ?? "?")" }
        case "Target.detachedFromTarget":
            if let gone = params["sessionId"] as? String { sessionFailures[gone] = "detached from its target" }
        default:
            break
        }
        if method != "Network.dataReceived" {
            lastSeq += 1
            events.append(Event(seq: lastSeq, method: method, sessionId: sessionId, params: params))
            if events.count > 2 * CDPConnection.keptEvents {
                events.removeFirst(events.count - CDPConnection.keptEvents)
            }
        }
        condition.broadcast()
        condition.unlock()

        if let (method, params) = autoReply {
            // Fire and forget: the reader must never wait for a reply it would have to read itself.
            _ = try? send(method, params, sessionId: sessionId, expectReply: false, timeout: 2)
        }
    }

    private func appendConsole(_ line: String) {
        console.append(line)
        if console.count > 2 * CDPConnection.keptMessages {
            console.removeFirst(console.count - CDPConnection.keptMessages)
        }
    }

    private static func render(_ remote: [String: Any]) -> String {
        if let value = remote["value"] {
            if value is NSNull { return "null" }
            if let string = value as? String { return string }
            return Chromium.describe(value)
        }
        if let unserializable = remote["unserializableValue"] as? String { return unserializable }
        if let description = remote["description"] as? String { return description }
        return remote["type"] as? String ?? "?"
    }
}
