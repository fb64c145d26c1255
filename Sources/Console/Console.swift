import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The installer's console: an HTTP(S) server with the live view, reads, health and controls of
/// the scanner, a client of the daemon's socket. Each browser that streams gets a daemon
/// connection of its own; one more, shared, polls `status`.
public struct Console: Sendable {
    public let settings: ConsoleSettings
    private let logger: Logger
    private let tls: TLSConfiguration?
    private let sessions: Sessions
    private let limits: SignInLimits
    private let viewers = Viewers()
    private let health: HealthMonitor

    /// Checks the sign-in files and loads the TLS certificate and key, so that a mistake in
    /// either stops the console at start with the file named.
    public init(settings: ConsoleSettings, logger: Logger) throws(ConsoleError) {
        self.settings = settings
        self.logger = logger
        _ = try SignInFiles(settings.web)
        if let certFile = settings.web.certFile, let keyFile = settings.web.keyFile {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certFile).map { NIOSSLCertificateSource.certificate($0) }
                let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
                tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            } catch {
                throw ConsoleError("web.cert_file \(certFile), web.key_file \(keyFile): cannot load the certificate and key (PEM): \(error)")
            }
        } else {
            tls = nil
        }
        sessions = Sessions(lifetime: settings.sessionLifetime, idleTimeout: settings.sessionIdleTimeout)
        limits = SignInLimits(limit: settings.failedSignInLimit, window: settings.failedSignInWindow)
        health = HealthMonitor(settings: settings, viewers: viewers, logger: logger)
    }

    /// The server, ready to run (as a service: it runs the health monitor beside it).
    /// `onListening` gets the port it listens on.
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let router = Router(context: ConsoleContext.self)
        Routes(settings: settings, sessions: sessions, limits: limits, health: health).add(to: router)

        // A refused upgrade gets hummingbird-websocket's own empty 400 (and the connection closed).
        let streams = Router(context: ConsoleContext.self)
        streams.add(middleware: RequestRules(requiresSignIn: settings.web.requiresSignIn, tls: settings.web.usesTLS))
        streams.add(middleware: SignInCheck(sessions: sessions, requiresSignIn: settings.web.requiresSignIn))
        streams.ws("/ws") { [settings] request, context in
            guard Self.isOwnOrigin(request, tls: settings.web.usesTLS) else {
                let origin = (request.headers[.origin] ?? "none").prefix(64)
                context.logger.warning("refused a stream to \(context.client): Origin '\(origin)' is not this console")
                return .dontUpgrade
            }
            return .upgrade(SecurityHeaders<RouterResponder<ConsoleContext>>.fields)
        } onUpgrade: { [settings, sessions, viewers, health, logger] inbound, outbound, context in
            guard let session = context.requestContext.session else { return }
            let viewer = Viewer(
                session: session, client: context.requestContext.client, settings: settings, sessions: sessions, viewers: viewers, health: health,
                logger: logger)
            await viewer.run(inbound: inbound, outbound: outbound)
        }
        let http = HTTPServerBuilder.http1WebSocketUpgrade(webSocketRouter: streams)
        let server = try tls.map { try HTTPServerBuilder.tls(http, tlsConfiguration: $0) } ?? http
        let scheme = tls == nil ? "http" : "https"
        let access = settings.web.requiresSignIn ? "sign-in required" : "no sign-in: loopback only, every local user is let in"
        return Application(
            responder: SecurityHeaders(base: router.buildResponder()),
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(settings.web.listen.host, port: settings.web.listen.port), serverName: nil),
            services: [health],
            onServerRunning: { [logger, settings] channel in
                let port = channel.localAddress?.port ?? settings.web.listen.port
                let shown = ListenAddressText.with(host: settings.web.listen.host, port: port)
                logger.notice("console at \(scheme)://\(shown)/ (\(access)), daemon socket \(settings.socketPath)")
                await onListening(port)
            },
            logger: logger
        )
    }

    /// Serves until SIGTERM or SIGINT.
    public func run() async throws {
        try await application().runService()
    }

    /// Whether a stream was asked for by this console's own page: a browser always sends
    /// `Origin` with a WebSocket, and a page of another site would name its own (cross-site
    /// WebSocket hijacking rides on the victim's cookie).
    static func isOwnOrigin(_ request: Request, tls: Bool) -> Bool {
        guard let origin = request.headers[.origin] else { return false }
        return RequestRules.sameOrigin(origin, RequestRules.authority(request), tls: tls)
    }
}

/// An address and port as a URL shows them.
enum ListenAddressText {
    static func with(host: String, port: Int) -> String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
