import FoundationEssentials
import Hummingbird
import Logging

/// The console's HTTP routes: sign-in and sign-out, the page and its script and style, the health
/// history and the viewport check. The live stream is the WebSocket at `/ws` (`Console`).
struct Routes {
    let settings: ConsoleSettings
    let sessions: Sessions
    let limits: SignInLimits
    let health: HealthMonitor

    func add(to router: Router<ConsoleContext>) {
        let requiresSignIn = settings.web.requiresSignIn
        router.add(middleware: RequestRules(requiresSignIn: requiresSignIn, tls: settings.web.usesTLS))
        router.get("/login") { _, _ in requiresSignIn ? Page.html(.ok, Page.signIn(problem: nil)) : Response(status: .seeOther, headers: [.location: "/"]) }
        router.post("/login") { request, context in try await signIn(request, context: context) }
        router.get("/app.css") { _, _ in Page.asset(Page.style, type: "text/css; charset=utf-8") }

        let signedIn = router.group().add(middleware: SignInCheck(sessions: sessions, requiresSignIn: requiresSignIn))
        signedIn.get("/") { _, _ in Page.html(.ok, Page.console) }
        signedIn.get("/app.js") { _, _ in Page.asset(Page.script, type: "text/javascript; charset=utf-8") }
        signedIn.post("/logout") { request, context in
            if let session = context.session, !session.id.isEmpty {
                sessions.end(session.id)
                context.logger.notice("signed out: \(session.user) from \(context.client)")
            }
            var response = Response(status: .seeOther, headers: [.location: requiresSignIn ? "/login" : "/"])
            response.setCookie(
                Cookie(name: SignInCheck.cookie, value: "", maxAge: 0, path: "/", secure: settings.web.usesTLS, httpOnly: true, sameSite: .strict))
            return response
        }
        signedIn.get("/api/health") { _, _ in Page.json(health.history) }
        signedIn.post("/api/viewport") { request, context in
            let body = try await request.body.collect(upTo: context.maxUploadSize)
            guard let asked = try? JSONDecoder().decode(ViewportCheck.Request.self, from: Data(body.readableBytesView)) else {
                return Page.json(
                    ViewportCheck(ok: false, lines: "", error: "expected JSON: {\"lines\": ...} or {\"x\", \"y\", \"width\", \"height\"}"), status: .badRequest)
            }
            return Page.json(ViewportCheck(asked))
        }
        // Reached only when the WebSocket upgrade was refused (SignInCheck already answered a
        // request without a session) or the request was no upgrade at all.
        signedIn.get("/ws") { request, context in
            guard Console.isOwnOrigin(request, tls: settings.web.usesTLS) else {
                context.logger.warning("refused a stream to \(context.client): Origin '\((request.headers[.origin] ?? "none").prefix(64))' is not this console")
                return Page.plain(.forbidden, "Refused: a stream opens only from this console's own page.")
            }
            return Page.plain(.badRequest, "Expected a WebSocket upgrade.")
        }
    }

    /// The sign-in form's answer: a session cookie and the page, or 401 and the form again, a
    /// second later. Each try is logged with the client's address and the user name given.
    private func signIn(_ request: Request, context: ConsoleContext) async throws -> Response {
        guard settings.web.requiresSignIn else { return Response(status: .seeOther, headers: [.location: "/"]) }
        guard limits.allows(context.clientAddress) else {
            context.logger.warning("sign-in refused from \(context.client): too many failed sign-ins")
            return Page.html(.tooManyRequests, Page.signIn(problem: "Too many failed sign-ins from this address: wait a quarter of an hour."))
        }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let form = (try? URLEncodedFormDecoder().decode(SignInForm.self, from: String(buffer: body))) ?? SignInForm()
        let files: SignInFiles
        do {
            files = try SignInFiles(settings.web)
        } catch {
            context.logger.error("sign-in from \(context.client) impossible: \(error)")
            return Page.html(.serviceUnavailable, Page.signIn(problem: "The console cannot read its sign-in files; its log says why."))
        }
        var user: String?
        let name = Page.logged(form.token?.isEmpty == false ? SignInFiles.tokenUser : form.user ?? "")
        if let token = form.token, !token.isEmpty {
            if files.check(token: token) { user = SignInFiles.tokenUser }
        } else if let given = form.user, let password = form.password, !given.isEmpty, await files.check(user: given, password: password) {
            user = given
        }
        guard let user else {
            limits.failed(context.clientAddress)
            context.logger.warning("sign-in failed: '\(name)' from \(context.client)")
            try await Task.sleep(for: settings.failedSignInDelay)
            return Page.html(.unauthorized, Page.signIn(problem: "Wrong user name, password or token."))
        }
        let session = sessions.start(user: user, mayControl: settings.web.controlUsers.contains(user))
        context.logger.notice("signed in: '\(name)' from \(context.client)", metadata: ["control": "\(session.mayControl)"])
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.setCookie(
            Cookie(
                name: SignInCheck.cookie, value: session.id, maxAge: Int(settings.sessionLifetime.seconds), path: "/", secure: settings.web.usesTLS,
                httpOnly: true, sameSite: .strict))
        return response
    }

    /// The sign-in form's fields: a user and password, or a token.
    struct SignInForm: Decodable {
        var user: String?
        var password: String?
        var token: String?
    }
}
