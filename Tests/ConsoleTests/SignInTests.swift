import ConfigReading
import Console
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ScannerTestSupport
import Testing

/// Nothing without a session, sign-in by password or token, failures refused and logged, and the
/// headers every response carries.
@Suite(.timeLimit(.minutes(10))) struct SignInTests {
    @Test func noPageStreamOrAPIWithoutSignIn() async throws {
        try await ConsoleFixture.run { console in
            let page = try await console.get("/")
            #expect(page.status == .seeOther && page.headers[.location] == "/login")
            for path in ["/app.js", "/api/health", "/ws"] { #expect(try await console.get(path).status == .unauthorized, "\(path)") }
            #expect(try await console.execute(uri: "/api/viewport", method: .post, body: ByteBuffer(string: "{}")).status == .unauthorized)
            #expect(try await console.get("/", session: "0123456789abcdef").status == .seeOther, "a made-up session id")
            #expect(try await console.stream(session: nil) { $0.status } == 400, "no stream without a session: not upgraded")
            let signInPage = try await console.get("/login")
            #expect(signInPage.status == .ok && String(buffer: signInPage.body).contains(#"id="login-user""#))
            #expect(try await console.get("/app.css").status == .ok, "the sign-in form's style")
        }
    }

    @Test func aWrongPasswordIsRefusedAndLogged() async throws {
        try await ConsoleFixture.run { console in
            for form in ["user=installer&password=wrong", "user=nobody&password=right+horse+battery", "user=installer", "token=not-the-token"] {
                let response = try await console.post("/login", form: form)
                #expect(response.status == .unauthorized && response.headers[.setCookie] == nil, "\(form)")
                #expect(String(buffer: response.body).contains("Wrong user name, password or token."))
            }
            let failures = console.log.all.filter { $0.contains("sign-in failed") }
            #expect(failures.count == 4, "\(console.log.all)")
            #expect(failures.first?.hasPrefix("warning: sign-in failed: 'installer' from ") == true && failures[1].contains("'nobody'"))
            #expect(failures.allSatisfy { $0.contains("from 127.0.0.1:") || $0.contains("from [::1]:") }, "the client's address")
        }
    }

    @Test func theRightPasswordSignsInAndSignOutEnds() async throws {
        try await ConsoleFixture.run { console in
            let response = try await console.post("/login", form: "user=installer&password=right+horse+battery")
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/") && !cookie.contains("Secure"))
            let session = try console.session(from: response)
            let page = try await console.get("/", session: session)
            #expect(page.status == .ok)
            for id in ["live", "live-codes", "fps", "width", "viewport-lines", "viewport-verdict", "vp-x", "vp-y", "vp-w", "vp-h", "vp-check", "reads"]
                + ["health-camera", "health-torch", "health-mode", "chart-decode", "ctl-torch-on", "ctl-torch-off", "ctl-pause", "ctl-resume"]
                + ["ctl-trigger", "ctl-beep", "ctl-result"]
            {
                #expect(String(buffer: page.body).contains(#"id="\#(id)""#), "id \(id)")
            }
            #expect(try await console.get("/app.js", session: session).status == .ok)
            #expect(console.log.all.contains { $0.hasPrefix("notice: signed in: 'installer' from ") })

            let out = try await console.execute(uri: "/logout", method: .post, headers: [.cookie: "kiosk_console=\(session)"])
            #expect(out.status == .seeOther && out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await console.get("/", session: session).status == .seeOther, "the session is over")
        }
    }

    @Test func aTokenSignsIn() async throws {
        try await ConsoleFixture.run { console in
            let session = try await console.signIn(token: ConsoleFixture.token)
            #expect(try await console.get("/", session: session).status == .ok)
            #expect(console.log.all.contains { $0.hasPrefix("notice: signed in: 'token' from ") })
        }
    }

    @Test func aFormFromAnotherSiteIsRefused() async throws {
        try await ConsoleFixture.run { console in
            let response = try await console.post(
                "/login", form: "user=installer&password=right+horse+battery", headers: [.origin: "http://evil.example"])
            #expect(response.status == .forbidden && response.headers[.setCookie] == nil)
        }
    }

    @Test func anAddressThatGuessesIsStopped() async throws {
        try await ConsoleFixture.run { console in
            for _ in 0..<10 { #expect(try await console.post("/login", form: "user=installer&password=guess").status == .unauthorized) }
            let stopped = try await console.post("/login", form: "user=installer&password=right+horse+battery")
            #expect(stopped.status == .tooManyRequests && stopped.headers[.setCookie] == nil, "even the right password, once past the limit")
        }
    }

    /// Every response carries the CSP and the other headers, and none has a CORS header, also
    /// when another site asks.
    @Test func everyResponseHasTheCSPAndNoCORSHeader() async throws {
        try await ConsoleFixture.run { console in
            let session = try await console.signIn(user: "installer", password: "right horse battery")
            var responses: [(String, ConsoleFixture.Answer)] = []
            for path in ["/", "/login", "/app.js", "/app.css", "/api/health", "/nowhere", "/ws"] {
                responses.append((path, try await console.get(path, session: session, headers: [.origin: "http://evil.example"])))
                responses.append((path + " (no session)", try await console.get(path)))
            }
            responses.append(("POST /login", try await console.post("/login", form: "user=a&password=b")))
            responses.append(("POST /api/viewport", try await console.post("/api/viewport", form: "x", headers: [.cookie: "kiosk_console=\(session)"])))
            for (path, response) in responses {
                #expect(
                    response.headers[.contentSecurityPolicy]
                        == "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
                    "\(path)")
                #expect(response.headers[.xContentTypeOptions] == "nosniff" && response.headers[.cacheControl] == "no-store", "\(path)")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin", "\(path)")
                #expect(
                    response.headers[.accessControlAllowOrigin] == nil
                        && !response.headers.contains { $0.name.rawName.lowercased().hasPrefix("access-control") })
            }
        }
    }

    /// Off loopback the console needs TLS and a sign-in file; its own settings say so too, for a
    /// config built by hand.
    @Test func refusesToStartOffLoopbackWithoutTLSOrSignIn() throws {
        var config = ClientConfig()
        config.web.listen = ListenAddress(host: "0.0.0.0", port: 8443)
        let neither = #expect(throws: ConsoleError.self) { try ConsoleSettings(config) }
        #expect(neither?.description.contains("web.listen: 0.0.0.0:8443 is not a loopback address") == true)
        #expect(neither?.description.contains("TLS (cert_file and key_file) and a sign-in file (password_file or token_file)") == true)
        config.web.passwordFile = "/etc/kiosk-scanner/web-passwords"
        let noTLS = #expect(throws: ConsoleError.self) { try ConsoleSettings(config) }
        #expect(noTLS?.description.contains("needs TLS (cert_file and key_file)") == true)
        config.web.certFile = "/c.pem"
        config.web.keyFile = "/c.key"
        #expect(throws: Never.self) { try ConsoleSettings(config) }
        config.web.passwordFile = nil
        #expect(throws: ConsoleError.self) { try ConsoleSettings(config) }
        // And by the config file's own words, with its line.
        let error = #expect(throws: ConfigError.self) { try ClientConfig.parse("web:\n  listen: 0.0.0.0:8080\n", file: "k.conf") }
        #expect(error?.description.hasPrefix("k.conf:2: web.listen: 0.0.0.0:8080 is not a loopback address") == true)
    }

    /// A sign-in file the console cannot use stops it at start, naming the file and the line.
    @Test func aBrokenSignInFileStopsTheConsole() throws {
        var config = ClientConfig()
        config.web.passwordFile = "/nonexistent/web-passwords"
        let missing = #expect(throws: ConsoleError.self) { try Console(settings: ConsoleSettings(config), logger: RecordedLog().logger) }
        #expect(missing?.description.hasPrefix("/nonexistent/web-passwords: cannot read") == true, "\(String(describing: missing))")
        let directory = try ConsoleFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "installer:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n".write(toFile: directory + "/passwords", atomically: true, encoding: .utf8)
        try "short\n".write(toFile: directory + "/tokens", atomically: true, encoding: .utf8)
        config.web.passwordFile = directory + "/passwords"
        let sha = #expect(throws: ConsoleError.self) { try Console(settings: ConsoleSettings(config), logger: RecordedLog().logger) }
        #expect(sha?.description == "\(directory)/passwords:1: installer's password is not a bcrypt hash; set it again with htpasswd -B")
        config.web.passwordFile = nil
        config.web.tokenFile = directory + "/tokens"
        let short = #expect(throws: ConsoleError.self) { try Console(settings: ConsoleSettings(config), logger: RecordedLog().logger) }
        #expect(short?.description.hasPrefix("\(directory)/tokens:1: a token must be at least 16 characters") == true)
    }
}
