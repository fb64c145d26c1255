import FoundationEssentials
import Hummingbird

/// The console's pages and their responses. HTML, CSS and JavaScript are string literals in the
/// binary (no CDN, no build step), and no page holds a script or a style of its own: the CSP
/// allows only /app.js and /app.css. Nothing a user or the daemon sent is ever put into HTML: the
/// script sets text with `textContent`, and the only server-made HTML is the sign-in form, whose
/// one variable is a fixed message.
enum Page {
    /// Paths that are pages: without a session they send the browser to the sign-in form.
    static let paths: Set<String> = ["/", "/index.html"]

    static func html(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let bytes = (try? JSONEncoder.forPage.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `text` as it may stand in a log line: at most 64 characters, control characters escaped,
    /// so that a user name typed into the form cannot forge a line.
    static func logged(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(64) {
            shown += scalar.value < 0x20 || scalar.value == 0x7F || scalar == "'" || scalar == "\\" ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return text.unicodeScalars.count > 64 ? shown + "..." : shown
    }

    /// The sign-in form, with a fixed message after a failed try.
    static func signIn(problem: String?) -> String {
        let message = problem.map { #"<p id="login-error" class="problem">\#($0)</p>"# } ?? #"<p id="login-error" class="problem" hidden></p>"#
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>kiosk-scanner: sign in</title>
            <link rel="stylesheet" href="/app.css">
            </head>
            <body class="sign-in">
            <main>
            <h1>kiosk-scanner console</h1>
            \(message)
            <form id="login-form" method="post" action="/login">
            <label>User <input id="login-user" name="user" autocomplete="username" required></label>
            <label>Password <input id="login-password" name="password" type="password" autocomplete="current-password" required></label>
            <button id="login-submit" type="submit">Sign in</button>
            </form>
            <form id="token-form" method="post" action="/login">
            <label>Token <input id="login-token" name="token" type="password" autocomplete="off" required></label>
            <button id="token-submit" type="submit">Sign in with a token</button>
            </form>
            </main>
            </body>
            </html>

            """
    }
}

extension JSONEncoder {
    /// What the console sends its page: keys in snake case, as the daemon's events have them.
    static var forPage: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }
}
