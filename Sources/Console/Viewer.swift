import ConfigReading
import FoundationEssentials
import HummingbirdWebSocket
import Logging

/// One browser's live view, for as long as its WebSocket is open: a daemon connection of its own
/// (`restrict`ed unless the user may use the controls, so that the daemon refuses them), `watch`
/// while it streams and `unwatch` when it leaves, the daemon's views at one in flight, and the
/// reads, state changes and control replies beside them.
struct Viewer {
    /// Who signed in, and from where (`address:port`, for the log).
    let session: Session, client: String
    let settings: ConsoleSettings
    /// Kept in use while the view streams; every open viewer, to post health and notices to.
    let sessions: Sessions, viewers: Viewers
    let health: HealthMonitor
    let logger: Logger

    /// What the page may ask the daemon to do: the controls, and nothing else of the socket's.
    static let controls: Set<String> = ["torch on", "torch off", "torch auto", "pause", "resume", "trigger", "beep"]

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let feed = ViewFeed()
        let watch = (fps: settings.web.fps, width: settings.web.width)
        feed.post(Self.json(Hello(user: session.user, control: session.mayControl, fps: watch.fps, width: watch.width)))
        feed.post(health.latest)
        viewers.add(feed)
        defer { viewers.remove(feed) }
        logger.notice("stream started for \(session.user) from \(client)", metadata: ["fps": "\(watch.fps)", "width": "\(watch.width)"])
        do {
            try await DaemonConnection.open(path: settings.socketPath) { daemon, lines in
                daemon.send("unsubscribe")
                if !session.mayControl { daemon.send("restrict") }
                daemon.send("watch \(watch.fps) \(watch.width)")
                await withTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        do {
                            for try await line in lines { take(line, from: daemon, into: feed) }
                            feed.post(Self.notice("the scanner daemon closed the connection"))
                        } catch {
                            feed.post(Self.notice("the connection to the scanner daemon failed: \(DaemonConnection.problem(error))"))
                        }
                        feed.finish()
                        return false
                    }
                    group.addTask {
                        var watch = watch
                        do {
                            for try await message in inbound.messages(maxSize: 4096) {
                                guard case .text(let text) = message, let request = try? JSONDecoder().decode(PageMessage.self, from: Data(text.utf8)) else {
                                    continue
                                }
                                if !answer(request, daemon: daemon, feed: feed, watch: &watch) { break }
                            }
                        } catch {}
                        feed.finish()
                        return false
                    }
                    group.addTask {
                        for await _ in feed.wakes {
                            let (messages, done) = feed.take()
                            do {
                                for message in messages { try await outbound.write(.text(message)) }
                            } catch {
                                return true
                            }
                            if done { break }
                        }
                        return true
                    }
                    // The writer ends the stream, after sending what the others left it.
                    while let writerEnded = await group.next(), !writerEnded {}
                    group.cancelAll()
                }
                ended(feed)
                daemon.send("unwatch")
            }
        } catch {
            let problem = DaemonConnection.problem(error)
            logger.warning("stream for \(session.user) from \(client): the scanner daemon at \(settings.socketPath): \(problem)")
            try? await outbound.write(.text(Self.notice("cannot reach the scanner daemon at \(settings.socketPath): \(problem)")))
            ended(feed)
        }
    }

    private func ended(_ feed: ViewFeed) {
        let counts = feed.counts
        logger.notice(
            "stream ended for \(session.user) from \(client)", metadata: ["views": "\(counts.viewsSent)", "skipped": "\(counts.viewsSkipped)"])
    }

    /// A line from the daemon: views to the feed's one slot, reads and state in order, replies
    /// matched to the command they answer.
    private func take(_ line: DaemonLine, from daemon: DaemonConnection, into feed: ViewFeed) {
        switch line.type {
        case "view":
            feed.offer(view: line.line)
        case "outcome", "state":
            feed.post(line.line)
        case "reply":
            guard let command = daemon.answered() else { return }
            let ok = line.reply?.ok ?? false
            if Self.controls.contains(command) {
                feed.post(Self.json(ControlResult(command: command, ok: ok, error: ok ? nil : line.reply?.error ?? "refused")))
            } else if !ok {
                let reason = line.reply?.error ?? "refused"
                logger.warning("stream for \(session.user) from \(client): the daemon refused \(command): \(reason)")
                feed.post(Self.notice("the scanner daemon refused \(command): \(reason)"))
            }
        default:
            break
        }
    }

    /// A message from the page; false when the stream must end (the session is over).
    private func answer(_ request: PageMessage, daemon: DaemonConnection, feed: ViewFeed, watch: inout (fps: Int, width: Int)) -> Bool {
        switch request.type {
        case "next":
            // Each drawn frame counts as use of the session, and ends the stream once it is over.
            guard session.id.isEmpty || sessions.use(session.id) != nil else {
                feed.post(Self.notice("signed out: sign in again"))
                return false
            }
            feed.drawn()
        case "settings":
            let fps = request.fps.map { min(max($0, WebConfig.fpsRange.lowerBound), WebConfig.fpsRange.upperBound) } ?? watch.fps
            let width = request.width.map { min(max($0, WebConfig.widthRange.lowerBound), WebConfig.widthRange.upperBound) } ?? watch.width
            guard (fps, width) != watch else { break }
            watch = (fps, width)
            daemon.send("watch \(fps) \(width)")
            logger.info("stream for \(session.user) from \(client) now at \(fps) fps, \(width) pixels wide")
        case "control":
            guard let command = request.command, Self.controls.contains(command) else {
                feed.post(Self.json(ControlResult(command: String((request.command ?? "").prefix(32)), ok: false, error: "not a control")))
                break
            }
            logger.notice("control '\(command)' from \(session.user) at \(client)")
            daemon.send(command)
        default:
            break
        }
        return true
    }

    static func json(_ value: some Encodable) -> String { HealthMonitor.json(value) }

    static func notice(_ text: String) -> String { json(Notice(text: text)) }
}

/// What the page sends: `{"type":"next"}` after drawing a view, `{"type":"settings","fps":F,
/// "width":W}`, `{"type":"control","command":"torch on"}`.
struct PageMessage: Decodable {
    let type: String
    let fps: Int?
    let width: Int?
    let command: String?
}

/// The first message of a stream: who the page is for, and the view's settings.
struct Hello: Encodable {
    var type = "hello"
    let user: String
    let control: Bool
    let fps: Int
    let width: Int
}

/// The daemon's answer to a control: ok, or its refusal.
struct ControlResult: Encodable {
    var type = "control"
    let command: String
    let ok: Bool
    let error: String?
}

/// Something the installer should know about the stream.
struct Notice: Encodable {
    var type = "notice"
    let text: String
}
