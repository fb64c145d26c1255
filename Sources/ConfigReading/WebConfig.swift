/// The installer's console (`kiosk-scanner web`): where it listens, how people sign in to it, who
/// may use the scanner's controls from it, and the live view's frame rate and size.
public struct WebConfig: Sendable, Hashable {
    /// Where the console listens; loopback by default, so that only someone on the board (or
    /// through `ssh -L`) reaches it.
    public var listen = ListenAddress(host: "127.0.0.1", port: 8080)
    /// TLS: the server's certificate chain and its private key (PEM), together.
    public var certFile: String?
    public var keyFile: String?
    /// Sign-in by name and password: an htpasswd file of bcrypt hashes (`htpasswd -B`).
    public var passwordFile: String?
    /// Sign-in by token: one secret token a line; the user is then called `token`.
    public var tokenFile: String?
    /// Web users who may use the controls (torch, pause, resume, trigger, beep); `token` names
    /// whoever signs in with a token. Everyone else may only look.
    public var controlUsers: Set<String> = []
    /// The live view's frames a second and width in pixels, until the installer lowers them.
    public var fps = 4
    public var width = 640

    /// The frame rates and widths the daemon's `watch` takes.
    public static let fpsRange = 1...15
    public static let widthRange = 160...1280

    public init() {}

    /// Whether the console serves HTTPS.
    public var usesTLS: Bool { certFile != nil && keyFile != nil }

    /// Whether anyone must sign in: with a password or token file, everywhere; without one the
    /// console lets in whoever reaches it, which `listen` then keeps to loopback.
    public var requiresSignIn: Bool { passwordFile != nil || tokenFile != nil }

    /// Why the console must not start with these settings, or nil: an address other than loopback
    /// needs TLS and a sign-in file, or anyone on the network could watch the camera.
    public var exposure: String? {
        guard !listen.isLoopback else { return nil }
        var missing: [String] = []
        if !usesTLS { missing.append("TLS (cert_file and key_file)") }
        if !requiresSignIn { missing.append("a sign-in file (password_file or token_file)") }
        guard !missing.isEmpty else { return nil }
        return "\(listen) is not a loopback address: it needs \(missing.joined(separator: " and ")), "
            + "or listen on 127.0.0.1 and reach the console through ssh -L"
    }
}

/// An IP address and a TCP port to listen on: `127.0.0.1:8080`, `0.0.0.0:8443`, `[::1]:8080`.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 or IPv6 address, without brackets.
    public var host: String
    /// 1...65535; ports below 1024 need a capability the console's unit does not give it.
    public var port: Int

    public init(host: String, port: Int) {
        (self.host, self.port) = (host, port)
    }

    /// Reads `HOST:PORT`, with an IPv6 address in brackets; `localhost` stands for 127.0.0.1. Host
    /// names are not taken: what one resolves to could change under the console.
    public init?(parsing text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard Self.isIPv6(host) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon] == "localhost" ? "127.0.0.1" : text[..<colon]
            port = text[text.index(after: colon)...]
            guard Self.isIPv4(host) else { return nil }
        }
        guard port.allSatisfy(\.isASCII), let number = Int(port), (1...65535).contains(number) else { return nil }
        self.init(host: String(host), port: number)
    }

    /// Whether only this machine reaches the address: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        if Self.isIPv4(host[...]) { return host.hasPrefix("127.") }
        let groups = host.lowercased().split(separator: ":", omittingEmptySubsequences: true)
        return groups.last.flatMap { Int($0, radix: 16) } == 1 && groups.dropLast().allSatisfy { Int($0, radix: 16) == 0 }
            && (host.contains("::") || groups.count == 8)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in (1...3).contains(part.count) && part.allSatisfy(\.isASCII) && Int(part).map { $0 <= 255 } == true }
    }

    private static func isIPv6(_ text: Substring) -> Bool {
        let hex = text.filter { $0 != ":" && $0 != "." }
        return text.contains(":") && text.count <= 45 && hex.allSatisfy(\.isHexDigit) && hex.allSatisfy(\.isASCII)
    }
}
