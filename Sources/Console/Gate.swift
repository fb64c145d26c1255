import Hummingbird
import Platform

/// The rules every request meets before any route. Without sign-in the console answers only to
/// a loopback host name, so that a web page cannot reach it through DNS rebinding; a form or an
/// API call sent from another site (an `Origin` that is not the console's) is refused.
struct RequestRules: RouterMiddleware {
    typealias Context = ConsoleContext
    let requiresSignIn: Bool
    let tls: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authority = Self.authority(request)
        if !requiresSignIn, !Self.isLoopbackHost(authority) {
            context.logger.warning("refused \(request.method) \(request.uri.path) from \(context.client): Host '\(authority.prefix(64))' is not loopback")
            return Page.plain(.misdirectedRequest, "This console answers only at 127.0.0.1 or localhost.")
        }
        if request.method != .get, request.method != .head, let origin = request.headers[.origin], !Self.sameOrigin(origin, authority, tls: tls) {
            context.logger.warning("refused \(request.method) \(request.uri.path) from \(context.client): Origin '\(origin.prefix(64))' is another site")
            return Page.plain(.forbidden, "Refused: the request came from another site.")
        }
        return try await next(request, context)
    }

    /// The Host the client named (HTTP/1's Host header is the request's authority).
    static func authority(_ request: Request) -> String {
        request.head.authority ?? ""
    }

    /// Whether `origin` is the console's own: the scheme it serves and the host the client named.
    static func sameOrigin(_ origin: String, _ authority: String, tls: Bool) -> Bool {
        !authority.isEmpty && origin == (tls ? "https://" : "http://") + authority
    }

    /// `localhost`, `127.x.x.x` or `[::1]`, with or without a port.
    static func isLoopbackHost(_ authority: String) -> Bool {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = host[host.index(after: host.startIndex)..<close]
            return host == "::1"
        }
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return host == "localhost" || (parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil })
    }
}

/// Lets a request through only with a live session (every request, without sign-in files): a
/// page without one goes to the sign-in form, anything else gets 401.
struct SignInCheck: RouterMiddleware {
    typealias Context = ConsoleContext
    let sessions: Sessions
    let requiresSignIn: Bool

    /// The cookie that holds the session's id.
    static let cookie = "kiosk_console"

    /// Everyone who reaches a console without sign-in files (on loopback only): as the socket's
    /// file mode lets in local users, the console lets in local browsers.
    static let local = Session(id: "", user: "local", mayControl: true, started: Instant(nanoseconds: 0), lastUsed: Instant(nanoseconds: 0))

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if !requiresSignIn {
            context.session = Self.local
        } else if let id = request.cookies[Self.cookie]?.value, let session = sessions.use(id) {
            context.session = session
        }
        guard context.session != nil else {
            if request.method == .get, Page.paths.contains(request.uri.path) {
                return Response(status: .seeOther, headers: [.location: "/login"])
            }
            return Page.plain(.unauthorized, "Sign in first.")
        }
        return try await next(request, context)
    }
}
