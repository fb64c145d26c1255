import ConfigReading
import HummingbirdBcrypt
import NIOPosix

/// The sign-in files of the `web` section: user names with bcrypt hashes (`password_file`, as
/// `htpasswd -B` writes it) and secret tokens (`token_file`, one a line). Read at start, so that a
/// broken file stops the console, and again at each sign-in, so that a user added with `htpasswd`
/// can sign in without a restart.
struct SignInFiles: Sendable {
    /// Each user's bcrypt hash, `$2y$`, `$2b$` or `$2a$`.
    var passwords: [String: String] = [:]
    var tokens: [[UInt8]] = []

    /// The user name a token signs in as (`web.control_users` may name it).
    static let tokenUser = "token"
    /// The shortest token taken: anything shorter could be guessed.
    static let minimumTokenLength = 16

    /// Reads the files `web` names; an error names the file and the line.
    init(_ web: WebConfig) throws(ConsoleError) {
        if let path = web.passwordFile {
            for (number, line) in try Self.lines(path) {
                guard let colon = line.firstIndex(of: ":") else { throw ConsoleError("\(path):\(number): expected USER:HASH (htpasswd -B)") }
                let user = String(line[..<colon])
                let hash = String(line[line.index(after: colon)...])
                guard ["$2y$", "$2b$", "$2a$"].contains(where: hash.hasPrefix), hash.utf8.count == 60 else {
                    throw ConsoleError("\(path):\(number): \(user)'s password is not a bcrypt hash; set it again with htpasswd -B")
                }
                passwords[user] = hash
            }
        }
        if let path = web.tokenFile {
            for (number, line) in try Self.lines(path) {
                guard line.count >= Self.minimumTokenLength else {
                    throw ConsoleError("\(path):\(number): a token must be at least \(Self.minimumTokenLength) characters (e.g. openssl rand -hex 24)")
                }
                tokens.append(Array(line.utf8))
            }
        }
    }

    /// Whether `password` is `user`'s. Bcrypt is slow on purpose: it runs on NIO's thread pool.
    /// An unknown user is checked against a stand-in hash, so that the time taken does not tell
    /// which user names exist.
    func check(user: String, password: String) async -> Bool {
        let known = passwords[user]
        // OpenBSD's bcrypt, which Hummingbird carries, knows $2b$; htpasswd's $2y$ is the same hash.
        let hash = "$2b$" + (known ?? Self.standIn).dropFirst(4)
        let matches = (try? await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }) ?? false
        return known != nil && matches
    }

    /// Whether `token` is one of the file's, compared in time that does not depend on where it differs.
    func check(token: String) -> Bool {
        let given = Array(token.utf8)
        var found = false
        for candidate in tokens {
            var difference = UInt8(given.count == candidate.count ? 0 : 1)
            for index in 0..<max(given.count, candidate.count) {
                difference |= (index < given.count ? given[index] : 0) ^ (index < candidate.count ? candidate[index] : 0)
            }
            found = found || difference == 0
        }
        return found
    }

    /// A hash of a random password, at htpasswd's default cost (made once, when first needed).
    private static let standIn = Bcrypt.hash(String(UInt64.random(in: .min ... .max)), cost: 5)

    /// The file's lines with their numbers, without blank lines and `#` comments.
    private static func lines(_ path: String) throws(ConsoleError) -> [(Int, Substring)] {
        let text: String
        do {
            text = try ConfigText.read(path: path)
        } catch {
            throw ConsoleError(error.description)
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            return line.isEmpty || line.hasPrefix("#") ? nil : (index + 1, line)
        }
    }
}
