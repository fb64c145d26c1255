import SystemPackage

/// The config file as text and as its top-level section: what every program that reads
/// /etc/kiosk-scanner/kiosk-scanner.conf shares, the daemon and its helper programs alike.
public enum ConfigText {
    /// Where the daemon and its helper programs look when no path is given.
    public static let defaultPath = "/etc/kiosk-scanner/kiosk-scanner.conf"

    /// The text of the config file at `path`: a regular file of at most 1 MiB, in UTF-8.
    public static func read(path: String) throws(ConfigError) -> String {
        // Non-blocking, so that a FIFO in the file's place cannot hold the reload; only a regular
        // file is read (a directory would read as empty, that is as the defaults).
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec])
        } catch {
            throw ConfigError(file: path, line: nil, key: nil, reason: "cannot read: \(error)")
        }
        defer { try? file.close() }
        let status = try? file.stat()
        guard let status, status.type == .regular else {
            throw ConfigError(file: path, line: nil, key: nil, reason: "not a regular file (\(fileKind(status?.type)))")
        }
        guard status.size <= maxBytes else { throw ConfigError(file: path, line: nil, key: nil, reason: "file larger than 1 MiB") }
        var bytes = [UInt8](repeating: 0, count: Int(status.size) + 1)
        var count = 0
        while count < bytes.count {
            let read: Int
            do {
                read = try bytes[count...].withUnsafeMutableBytes { try file.read(into: $0) }
            } catch {
                throw ConfigError(file: path, line: nil, key: nil, reason: "cannot read: \(error)")
            }
            if read == 0 { break }
            count += read
        }
        // One byte more than the size: a file that grew while read is still bounded.
        guard count <= maxBytes else { throw ConfigError(file: path, line: nil, key: nil, reason: "file larger than 1 MiB") }
        bytes.removeSubrange(count...)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(file: path, line: nil, key: nil, reason: "not UTF-8 text")
        }
        return text
    }

    /// The largest config file read.
    static let maxBytes = 1 << 20

    private static func fileKind(_ type: FileType?) -> String {
        switch type {
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .characterSpecial: "a character device"
        case .blockSpecial: "a block device"
        case .socket: "a socket"
        default: "not a file"
        }
    }

    /// The top-level mapping of config `text`; `file` names it in errors.
    package static func top(_ text: String, file: String) throws(ConfigError) -> Section {
        let root: YAMLNode?
        do {
            root = try YAML.compose(text)
        } catch {
            throw ConfigError(file: file, line: error.line, key: nil, reason: "YAML syntax: \(error.problem)")
        }
        return try Section(node: root, file: file, path: "", line: 1)
    }
}
