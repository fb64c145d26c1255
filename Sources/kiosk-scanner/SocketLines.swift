import Daemon
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A connection to the daemon's socket, read a line at a time (for `listen` and `status`).
final class SocketLines {
    private let handle: FileHandle
    private var pending = Data()

    /// Connects, or returns nil with errno set.
    init?(path: String) {
        let fd = UnixAddress.connect(path)
        guard fd >= 0 else { return nil }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    func send(_ line: String) {
        try? handle.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The next line, or nil when the daemon closed the connection.
    func next() -> Data? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<newline]
                pending = Data(pending[(newline + 1)...])
                return Data(line)
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            pending.append(chunk)
        }
    }
}
