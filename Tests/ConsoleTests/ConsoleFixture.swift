import ConfigReading
import Console
import Foundation
import HTTPTypes
import HummingbirdBcrypt
import HummingbirdTesting
import NIOCore
import NIOSSL
import ScannerTestSupport
import Testing

/// A console on a free port of localhost and a fake daemon in a scratch directory, for one test.
/// The suites' time limits guard against a hang, not a duration: in the full run the test
/// process's two cooperative threads can be held for minutes by tests that block on a child
/// process, and the console's server runs on those threads too. The sign-in files, when asked
/// for, hold `installer` (a control user) and `viewer` (not one),
/// and a token.
struct ConsoleFixture: Sendable {
    let directory: String
    let daemon: FakeDaemon
    let log: RecordedLog
    let port: Int
    /// A client of the fixture's own: the test framework's gives up after 20 s, which a server
    /// starved by blocking tests (see above) can take.
    let client: TestClient

    static let token = "0123456789abcdef0123456789abcdef"
    static let passwords = ["installer": "right horse battery", "viewer": "staple correct"]

    /// Runs `body` against a console whose `web` section `configure` sets (given the directory),
    /// over HTTPS with `tls` (`configure` then names the certificate and key).
    static func run(
        signIn: Bool = true, tls: Bool = false, configure: @Sendable (inout WebConfig, String) throws -> Void = { _, _ in },
        _ body: @Sendable (ConsoleFixture) async throws -> Void
    ) async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = ClientConfig()
        config.socket.path = directory + "/scan.sock"
        if signIn {
            // As `htpasswd -B` writes them: $2y$, which is $2b$ under another name.
            let lines = passwords.sorted { $0.key < $1.key }.map { "\($0.key):$2y$" + Bcrypt.hash($0.value, cost: 4).dropFirst(4) }
            try ("# htpasswd -B\n" + lines.joined(separator: "\n") + "\n").write(toFile: directory + "/passwords", atomically: true, encoding: .utf8)
            try "\n\(token)\n".write(toFile: directory + "/tokens", atomically: true, encoding: .utf8)
            config.web.passwordFile = directory + "/passwords"
            config.web.tokenFile = directory + "/tokens"
            config.web.controlUsers = ["installer"]
        }
        try configure(&config.web, directory)
        var settings = try ConsoleSettings(config)
        settings.failedSignInDelay = .zero
        let daemon = try await FakeDaemon.start(at: config.socket.path)
        let log = RecordedLog()
        let console = try Console(settings: settings, logger: log.logger)
        do {
            try await console.application().test(tls ? .ahc(.https) : .live) { framework in
                let port = try #require(framework.port)
                var insecure = TLSConfiguration.makeClientConfiguration()
                insecure.certificateVerification = .none
                let client = TestClient(
                    host: "localhost", port: port, configuration: .init(tlsConfiguration: tls ? insecure : nil, timeout: .seconds(600)))
                client.connect()
                do {
                    try await body(ConsoleFixture(directory: directory, daemon: daemon, log: log, port: port, client: client))
                } catch {
                    try? await client.shutdown()
                    throw error
                }
                try await client.shutdown()
            }
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
    }

    /// A new directory of its own under the temporary directory.
    static func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "console-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The console's own origin, as a browser on its page sends it.
    var origin: String { "http://localhost:\(port)" }

    /// Signs in with the form and returns the session cookie's value.
    func signIn(user: String, password: String) async throws -> String {
        try await session(from: post("/login", form: "user=\(user)&password=\(password.replacingOccurrences(of: " ", with: "+"))"))
    }

    func signIn(token: String) async throws -> String {
        try await session(from: post("/login", form: "token=\(token)"))
    }

    func session(from response: Answer) throws -> String {
        #expect(response.status == .seeOther && response.headers[.location] == "/")
        let cookie = try #require(response.headers[.setCookie])
        let value = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
        return String(value)
    }

    /// A response, its body read whole.
    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer
    }

    /// One request, with `Host: localhost:PORT` as a browser sends it.
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> Answer {
        let response = try await client.execute(.init(uri, method: method, authority: "localhost:\(port)", headers: headers, body: body))
        return Answer(status: response.status, headers: response.headers, body: response.body ?? ByteBuffer())
    }

    func post(_ path: String, form: String, headers: HTTPFields = [:]) async throws -> Answer {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: form))
    }

    func get(_ path: String, session: String? = nil, headers: HTTPFields = [:]) async throws -> Answer {
        var headers = headers
        if let session { headers[.cookie] = "kiosk_console=\(session)" }
        return try await execute(uri: path, method: .get, headers: headers)
    }

    /// Opens the live stream as the console's page does, with the session's cookie (`origin: ""`
    /// sends no Origin).
    func stream<Result: Sendable>(
        session: String?, origin: String? = nil, host: String? = nil, _ body: (BrowserSocket) async throws -> Result
    ) async throws -> Result {
        var headers = origin == "" ? [] : [("Origin", origin ?? self.origin)]
        if let session { headers.append(("Cookie", "kiosk_console=\(session)")) }
        return try await BrowserSocket.open(port: port, host: host, headers: headers, body)
    }
}
