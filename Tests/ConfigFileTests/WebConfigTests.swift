import ConfigFile
import ConfigReading
import Imaging
import Testing

/// The `web` section, which the installer's console reads from the daemon's own config file, and
/// the address rules that keep the console off the network unless it has TLS and sign-in.
@Suite struct WebConfigTests {
    @Test func readsEveryKey() throws {
        let text = """
            web:
              listen: "[::]:8443"
              cert_file: /etc/kiosk-scanner/web.pem
              key_file: /etc/kiosk-scanner/web.key
              password_file: /etc/kiosk-scanner/web-passwords
              token_file: /etc/kiosk-scanner/web-tokens
              control_users: [installer, token]
              fps: 2
              width: 320
            """
        let web = try ConfigFile.parse(text, file: "w.conf").web
        #expect(web.listen == ListenAddress(host: "::", port: 8443) && !web.listen.isLoopback && web.usesTLS && web.requiresSignIn)
        #expect(web.certFile == "/etc/kiosk-scanner/web.pem" && web.keyFile == "/etc/kiosk-scanner/web.key")
        #expect(web.passwordFile == "/etc/kiosk-scanner/web-passwords" && web.tokenFile == "/etc/kiosk-scanner/web-tokens")
        #expect(web.controlUsers == ["installer", "token"] && web.fps == 2 && web.width == 320)
        #expect(try ClientConfig.parse(text, file: "w.conf").web == web, "the console reads the section as check-config does")
    }

    @Test func theDefaultIsLoopbackWithoutSignIn() throws {
        let web = try ConfigFile.parse("", file: "e.conf").web
        #expect(web == WebConfig() && web.listen.description == "127.0.0.1:8080" && web.listen.isLoopback)
        #expect(!web.usesTLS && !web.requiresSignIn && web.exposure == nil && web.fps == 4 && web.width == 640)
    }

    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1:8080", true), ("127.3.2.1:80", "127.3.2.1:80", true), ("localhost:9000", "127.0.0.1:9000", true),
        ("[::1]:8080", "[::1]:8080", true), ("[0:0:0:0:0:0:0:1]:8080", "[0:0:0:0:0:0:0:1]:8080", true),
        ("0.0.0.0:8443", "0.0.0.0:8443", false), ("192.168.4.2:8443", "192.168.4.2:8443", false), ("[::]:8443", "[::]:8443", false),
        ("[fe80::1]:8443", "[fe80::1]:8443", false), ("[::ffff:127.0.0.1]:8443", "[::ffff:127.0.0.1]:8443", false),
    ])
    func listenAddresses(_ text: String, _ shown: String, _ loopback: Bool) throws {
        let address = try #require(ListenAddress(parsing: text))
        #expect(address.description == shown && address.isLoopback == loopback)
    }

    @Test(arguments: ["lane-3:8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "256.0.0.1:80", "[::1:8080", "[lane]:8080", ":8080", "1.2.3:80"])
    func notListenAddresses(_ text: String) {
        #expect(ListenAddress(parsing: text) == nil)
    }

    /// Off loopback, TLS and a sign-in file both; on loopback neither is needed.
    @Test func offLoopbackNeedsTLSAndSignIn() throws {
        var web = WebConfig()
        web.listen = ListenAddress(host: "0.0.0.0", port: 8443)
        #expect(web.exposure?.contains("TLS (cert_file and key_file) and a sign-in file (password_file or token_file)") == true)
        web.certFile = "/c.pem"
        web.keyFile = "/c.key"
        #expect(web.exposure?.contains("a sign-in file") == true && web.exposure?.contains("TLS") == false)
        web.passwordFile = "/p"
        #expect(web.exposure == nil)
        web.certFile = nil
        #expect(web.exposure?.contains("TLS") == true)
    }

    /// Each bad file names the line and the key that is wrong, for check-config and the console alike.
    @Test(arguments: BadConfig.web) func errorsNameLineAndKey(_ file: BadConfig) {
        file.expectRefused()
        let error = #expect(throws: ConfigError.self) { try ClientConfig.parse(file.text, file: "/etc/k.conf") }
        #expect(error?.description.hasPrefix("/etc/k.conf:\(file.line): \(file.key): ") == true, "\(String(describing: error))")
    }

    /// The viewport reader lives in ConfigReading, where the console uses it too.
    @Test func theViewportReaderIsShared() throws {
        #expect(
            try ConfigFile.parse("viewport:\n  rect: [0.1, 0.2, 0.5, 0.4]\n", file: "v.conf").pipeline.viewport
                == .rect(x: 0.1, y: 0.2, width: 0.5, height: 0.4))
        #expect(try ConfigFile.parse("viewport:\n  square: 0.5\n", file: "v.conf").pipeline.viewport == .square(fraction: 0.5))
    }
}
