import Codes
import FoundationEssentials
import ScannerProtocol

/// Commands from the broker on `cmd`: checked here, sent to the daemon at its pace through the
/// `DaemonLink`'s `CommandWindow`, and each answered on `cmd/reply`: by the daemon's reply, or by
/// the bridge's refusal (not allowed, malformed, busy, daemon away). Nothing from the broker goes
/// into a log line or a reply unescaped or unbounded.
extension Bridge {
    /// The most of a daemon's reply forwarded to the broker.
    static let replyLimit = 64 << 10

    /// A command message from the broker, on the broker thread.
    func command(_ payload: [UInt8], link: DaemonLink) {
        guard payload.count <= Command.maxLineBytes else {
            return refuse(payload, "longer than \(Command.maxLineBytes) bytes, the longest command line")
        }
        guard let text = String(validating: payload, as: UTF8.self)?.trimmingWhitespace() else { return refuse(payload, "not UTF-8 text") }
        // One line: a newline inside would be a second command to the daemon, with a reply nobody waits for.
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return refuse(payload, "control characters in a command line")
        }
        let name = String(text.prefix { $0 != " " }).lowercased()
        guard settings.commands.contains(name) else { return refuse(payload, Self.notAllowed(name, allowed: settings.commands)) }
        if case .failure(let error) = Command.parse(text) { return refuse(payload, error.message) }
        switch link.submit(command: text) {
        case nil:
            reply(to: text, ok: false, error: "the scanner daemon is not connected")
        case .busy:
            if busyRefusals.wrappingAdd(1, ordering: .relaxed).oldValue == 0 {
                logger.notice("commands from the broker come faster than the daemon answers: refused as busy past \(DaemonLink.queueCapacity) waiting")
            }
            reply(
                to: text, ok: false,
                error: "busy: \(DaemonLink.window) commands are at the scanner daemon and \(DaemonLink.queueCapacity) wait; send it again later")
        case .queued:
            break
        case .send:
            // The spell ends when the queue has emptied, not at the first command it takes again.
            let refused = busyRefusals.exchange(0, ordering: .relaxed)
            if refused > 0 { logger.notice("\(refused) commands from the broker were refused as busy") }
        }
    }

    /// Why the command `name` is refused: `allowed` does not name it. The name is escaped
    /// (`LogText`), since the reason goes into the log line: past C0 and DEL, which a command line
    /// may not hold, it can carry C1 (U+009B is CSI to a terminal) or a line separator.
    static func notAllowed(_ name: String, allowed: Set<String>) -> String {
        let list = allowed.isEmpty ? "none are (mqtt.commands)" : "allowed: \(allowed.sorted().joined(separator: ", "))"
        return "'\(LogText.escaped(name, limit: 32))' is not allowed over MQTT; \(list)"
    }

    /// Refuses a command: a reply echoing it (bounded), and one escaped log line.
    private func refuse(_ payload: [UInt8], _ reason: String) {
        logger.notice("command from the broker refused: '\(LogText.escaped(payload, limit: 80))': \(reason)")
        reply(to: Self.echo(payload), ok: false, error: reason)
    }

    /// What a reply says was asked: the command as sent, cut to the longest command line.
    static func echo(_ payload: [UInt8]) -> String {
        let text = String(decoding: payload.prefix(Command.maxLineBytes), as: UTF8.self)
        return payload.count > Command.maxLineBytes ? text + "… (\(payload.count) bytes)" : text
    }

    /// The bridge's own reply to `command`.
    func reply(to command: String, ok: Bool, error: String) {
        let reply = BridgeReply(request: command, ok: ok, error: error)
        let payload = (try? JSONEncoder.forEvents().encode(reply)).map(Array.init) ?? []
        inbox.withLock { $0.replies.append((topics.commandReply, payload)) }
    }

    /// The daemon's reply line to `command`, with `request` in front; one too large to forward is
    /// replaced by a refusal that says so.
    func forward(_ line: [UInt8], to command: String) {
        guard line.count <= Self.replyLimit, line.first == UInt8(ascii: "{"), line.count > 2 else {
            return reply(
                to: command, ok: false, error: "the scanner daemon's reply (\(line.count) bytes) is more than the bridge forwards (\(Self.replyLimit))")
        }
        let payload = Array("{\"request\":\(Self.jsonString(command)),".utf8) + line.dropFirst()
        inbox.withLock { $0.replies.append((topics.commandReply, payload)) }
    }
}
