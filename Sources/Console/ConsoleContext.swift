import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// A request to the console: Hummingbird's context, the client's address (for the log and the
/// sign-in limits), and the session once the sign-in check found one.
public struct ConsoleContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<ConsoleContext>
    /// The client's address and port, as the log shows it.
    public let client: String
    /// The client's address alone, which the sign-in limits count by.
    public let clientAddress: String
    /// The signed-in session, set by `SignInCheck`.
    public var session: Session?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        let remote = source.channel.remoteAddress
        clientAddress = remote?.ipAddress ?? "unknown"
        if let remote, let port = remote.port, let address = remote.ipAddress {
            client = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        } else {
            client = "unknown"
        }
    }

    /// Requests are small: a sign-in form or a few viewport lines.
    public var maxUploadSize: Int { 16 << 10 }
}

/// Headers on every response of the console, and none that would let another site read it (no
/// CORS header at all): the page's own scripts and styles only, images from the page itself or
/// data URLs, never in a frame, no referrer, and nothing cached.
struct SecurityHeaders<Base: HTTPResponder>: HTTPResponder where Base.Context == ConsoleContext {
    let base: Base

    static var fields: HTTPFields {
        [
            .contentSecurityPolicy:
                "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            .xContentTypeOptions: "nosniff",
            // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the
            // sign-in form, which the Origin check must refuse; same-origin tells no other site a URL.
            HTTPField.Name("Referrer-Policy")!: "same-origin",
            .cacheControl: "no-store",
            HTTPField.Name("X-Frame-Options")!: "DENY",
        ]
    }

    func respond(to request: Request, context: ConsoleContext) async throws -> Response {
        var response: Response
        do {
            response = try await base.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            context.logger.error("\(request.method) \(request.uri.path): \(error)")
            response = Response(status: .internalServerError)
        }
        for field in Self.fields { response.headers[field.name] = field.value }
        response.headers[.accessControlAllowOrigin] = nil
        return response
    }
}
