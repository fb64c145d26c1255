import ConfigFile
import Logging
import Platform
import ServiceLifecycle
import Synchronization
import SystemPackage

/// Writes the metrics to a node_exporter textfile every interval, atomically (`AtomicFile`: a
/// temporary file in the same directory, then rename), so the collector never reads half a file.
final class MetricsFileService: Service, Sendable {
    private let config: Mutex<MetricsConfig>
    private let counters: Counters
    private let target: any CommandTarget
    private let logger: Logger

    init(config: MetricsConfig, counters: Counters, target: any CommandTarget, logger: Logger) {
        self.config = Mutex(config)
        self.counters = counters
        self.target = target
        self.logger = logger
    }

    /// Follows a reloaded config from the next write on.
    func reconfigure(_ new: MetricsConfig) { config.withLock { $0 = new } }

    func run() async throws {
        var failing: String?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let current = config.withLock { $0 }
            if let path = current.textfile {
                let problem = Self.write(Metrics.prometheus(counters.snapshot, target.snapshot, outputs: target.outputHealth), to: path)
                // Logged when it starts and when it clears, not every interval.
                if problem != failing {
                    if let problem { logger.error("metrics textfile: \(problem)") } else { logger.info("metrics textfile \(path) written") }
                    failing = problem
                }
            }
            let interval = Duration.milliseconds(Int(current.intervalSeconds * 1000))
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        if let path = config.withLock({ $0.textfile }) {
            // A stopped daemon leaves its last figures, with the streaming gauge at 0.
            _ = Self.write(Metrics.prometheus(counters.snapshot, target.snapshot, outputs: target.outputHealth), to: path)
        }
    }

    /// Writes `text` to `path` whole (`AtomicFile`: a fresh temporary file that never follows a
    /// planted symlink, synced, then renamed); the reason on failure.
    static func write(_ text: String, to path: String) -> String? {
        do throws(Errno) {
            try AtomicFile.write(Array(text.utf8), to: path)
            return nil
        } catch {
            return "cannot write \(path): \(error.description)"
        }
    }
}
