/// The `web` section: the installer's console's address, TLS, sign-in files, control users and
/// live-view defaults.
extension WebConfig {
    /// Reads the `web` section; every key it does not know is an error, and so is an address
    /// other than loopback without TLS and a sign-in file (`exposure`).
    package init(_ section: inout Section) throws(ConfigError) {
        var web = WebConfig()
        let listen = section.value("listen")
        if let listen {
            let text = try listen.string()
            guard let address = ListenAddress(parsing: text) else {
                throw listen.error("'\(text)' is not HOST:PORT with an IP address (127.0.0.1:8080, 0.0.0.0:8443, [::1]:8080)")
            }
            web.listen = address
        }
        if let value = section.value("cert_file") { web.certFile = try value.absolutePath() }
        if let value = section.value("key_file") { web.keyFile = try value.absolutePath() }
        if (web.certFile == nil) != (web.keyFile == nil) {
            throw section.error("cert_file and key_file go together (the server's certificate and its private key)")
        }
        if let value = section.value("password_file") { web.passwordFile = try value.absolutePath() }
        if let value = section.value("token_file") { web.tokenFile = try value.absolutePath() }
        if let value = section.value("control_users") {
            for item in try value.optionalItems() {
                let name = try item.string()
                guard Self.isUserName(name) else { throw item.error("'\(name)' cannot be a user name (no ':', spaces or control characters; not empty)") }
                web.controlUsers.insert(name)
            }
        }
        if let value = section.value("fps") { web.fps = try value.int(in: Self.fpsRange) }
        if let value = section.value("width") { web.width = try value.int(in: Self.widthRange) }
        try section.finish()
        if let exposure = web.exposure { throw listen?.error(exposure) ?? section.error(exposure) }
        self = web
    }

    /// Whether `name` can be a user of an htpasswd file.
    static func isUserName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255
            && !name.unicodeScalars.contains { $0 == ":" || $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
    }
}
