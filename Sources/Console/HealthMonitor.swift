import FoundationEssentials
import Logging
import Platform
import ServiceLifecycle
import Synchronization

/// Asks the daemon for `status` every `statusInterval` on one connection that every browser
/// shares, keeps the last hour of samples, and sends each new one to the browsers streaming.
/// Cheap for the daemon: one short reply every few seconds, taken also when nobody looks, so that
/// the charts have their hour when someone does.
final class HealthMonitor: Service, Sendable {
    private let socketPath: String
    private let interval: Duration
    private let viewers: Viewers
    private let logger: Logger
    private let origin = Instant.now()
    private let state: Mutex<(history: HealthHistory, problem: String?)>

    init(settings: ConsoleSettings, viewers: Viewers, logger: Logger) {
        socketPath = settings.socketPath
        interval = settings.statusInterval
        self.viewers = viewers
        self.logger = logger
        state = Mutex((HealthHistory(span: settings.historySpan, interval: settings.statusInterval), "not connected yet"))
    }

    /// The samples kept, and why the daemon cannot be asked, if it cannot.
    var history: HealthHistoryMessage {
        state.withLock { HealthHistoryMessage(interval: interval.seconds, samples: $0.history.samples, daemon: $0.problem) }
    }

    /// The newest sample as the page takes it, or why there is none: what a new stream starts with.
    var latest: String {
        state.withLock { Self.json(HealthMessage(sample: $0.history.samples.last, daemon: $0.problem)) }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.poll() }
    }

    private func poll() async {
        var backoff = Duration.seconds(1)
        while !Task.isCancelled {
            var problem = "\(socketPath): the daemon closed the connection"
            do {
                try await DaemonConnection.open(path: socketPath) { daemon, lines in
                    daemon.send("unsubscribe")
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { [interval] in
                            while true {
                                daemon.send("status")
                                try await Task.sleep(for: interval)
                            }
                        }
                        for try await line in lines where line.type == "reply" {
                            guard daemon.answered() == "status", let status = StatusSnapshot.inReply(line.line) else { continue }
                            backoff = .seconds(1)
                            take(status)
                        }
                        group.cancelAll()
                    }
                }
            } catch {
                problem = "\(socketPath): \(DaemonConnection.problem(error))"
            }
            guard !Task.isCancelled else { return }
            lost(problem)
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(30))
        }
    }

    private func take(_ status: StatusSnapshot) {
        let (sample, recovered) = state.withLock { state in
            let recovered = state.problem != nil
            state.problem = nil
            return (state.history.add(status, at: Instant.now(), origin: origin), recovered)
        }
        if recovered { logger.info("health: polling the daemon at \(socketPath)") }
        viewers.post(Self.json(HealthMessage(sample: sample)))
    }

    private func lost(_ problem: String) {
        let changed = state.withLock { state in
            defer { state.problem = problem }
            return state.problem != problem
        }
        guard changed else { return }
        logger.warning("health: \(problem); retrying")
        viewers.post(Self.json(HealthMessage(daemon: problem)))
    }

    static func json(_ value: some Encodable) -> String {
        (try? String(decoding: JSONEncoder.forPage.encode(value), as: UTF8.self)) ?? "{}"
    }
}
