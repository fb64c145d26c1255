import ConfigReading
import Console
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOSSL
import ScannerTestSupport
import Testing

/// Under TLS the console serves HTTPS from the certificate and key the section names, and the
/// session cookie is Secure; a certificate it cannot load stops it at start.
@Suite(.timeLimit(.minutes(10))) struct TLSTests {
    /// A self-signed certificate for localhost, made with the openssl command.
    static func certificate(in directory: String) throws -> (cert: String, key: String) {
        let (cert, key) = (directory + "/web.pem", directory + "/web.key")
        let openssl = ChildProcess()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-keyout", key, "-out", cert,
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0)
        return (cert, key)
    }

    @Test func servesHTTPSAndTheCookieIsSecure() async throws {
        try await ConsoleFixture.run(tls: true) { web, directory in
            (web.certFile, web.keyFile) = try Self.certificate(in: directory)
        } _: { console in
            let response = try await console.post("/login", form: "user=installer&password=right+horse+battery")
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let session = try console.session(from: response)
            let page = try await console.get("/", session: session)
            #expect(page.status == .ok && page.headers[.contentSecurityPolicy] != nil)
            let cookieHeader: HTTPFields = [.cookie: "kiosk_console=\(session)"]
            var plain = cookieHeader
            plain[.origin] = "http://localhost:\(console.port)"
            #expect(try await console.execute(uri: "/api/viewport", method: .post, headers: plain, body: ByteBuffer(string: "{}")).status == .forbidden)
            var own = cookieHeader
            own[.origin] = "https://localhost:\(console.port)"
            #expect(try await console.execute(uri: "/api/viewport", method: .post, headers: own, body: ByteBuffer(string: "{}")).status == .ok)
        }
    }

    @Test func aCertificateItCannotLoadStopsIt() throws {
        let directory = try ConsoleFixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "not a certificate\n".write(toFile: directory + "/web.pem", atomically: true, encoding: .utf8)
        try "not a key\n".write(toFile: directory + "/web.key", atomically: true, encoding: .utf8)
        var config = ClientConfig()
        config.web.certFile = directory + "/web.pem"
        config.web.keyFile = directory + "/web.key"
        let error = #expect(throws: ConsoleError.self) { try Console(settings: ConsoleSettings(config), logger: RecordedLog().logger) }
        #expect(error?.description.hasPrefix("web.cert_file \(directory)/web.pem, web.key_file \(directory)/web.key: cannot load") == true)
    }
}
