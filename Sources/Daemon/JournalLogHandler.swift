import Documents
import Logging
import Platform
import SystemPackage

/// A log handler for systemd's journal: each line starts with its syslog priority, `<N>`
/// (sd-daemon(3)), so that `journalctl -p warning -u kiosk-scanner` filters by level, and carries no
/// timestamp (the journal stamps every line). Used when standard error is the journal's stream.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        let shown = fields.isEmpty ? "" : fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + " "
        writeLine("<\(Self.priority(event.level))>\(label): \(shown)[\(event.source)] \(event.message)", to: .standardError)
    }

    /// The syslog priority of a level (sd-daemon(3)).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether standard error is connected to the journal: `JOURNAL_STREAM` names the device and inode
    /// of the stream systemd connected, and a redirection (or a child of the service) has another.
    public static var standardErrorIsJournal: Bool {
        guard let value = CurrentProcess.environment("JOURNAL_STREAM") else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt(parts[0]), let inode = UInt(parts[1]), let status = try? FileDescriptor.standardError.stat()
        else { return false }
        return UInt(status.deviceID.rawValue) == device && UInt(status.inode.rawValue) == inode
    }
}
