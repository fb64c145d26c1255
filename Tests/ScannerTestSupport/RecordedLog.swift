import Logging
import Synchronization

/// A logger that keeps its lines, so that a test can read what a module logged (the bridge, the console).
public final class RecordedLog: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var logger: Logger { Logger(label: "test") { _ in Handler(log: self) } }

    /// Every line so far, as `level: message`.
    public var all: [String] { lines.withLock { $0 } }

    private struct Handler: LogHandler {
        let log: RecordedLog
        var logLevel = Logger.Level.trace
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.lines.withLock { $0.append("\(event.level): \(event.message)") }
        }
    }
}
