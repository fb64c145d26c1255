import FoundationEssentials
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Reads waiting for the broker: one file per message in a directory, named by its place in line,
/// so that they survive a restart of the bridge and go out in the order they came. Bounded in bytes:
/// past the limit the oldest are dropped and counted. A message leaves once the broker has it.
///
/// Files are renamed into place whole, but not synced: a crash of the bridge loses nothing, a power
/// cut may lose the last reads (an fsync per read would wear an SD card for every code).
public final class Spool: Sendable {
    /// One waiting message.
    public struct Entry: Sendable, Equatable {
        public let id: UInt64
        public let topic: String
        public let payload: [UInt8]

        var size: Int { topic.utf8.count + payload.count + 1 }
    }

    /// What the spool holds and has done, for `state` and the metrics.
    public struct Counts: Sendable, Equatable, Codable {
        public var queued = 0
        public var bytes = 0
        /// Dropped because the spool was full, oldest first.
        public var dropped = 0
        /// Taken by the broker since the bridge started.
        public var sent = 0
    }

    public let directory: String
    public let limit: Int
    private let state: Mutex<(entries: [Entry], nextID: UInt64, counts: Counts)>

    /// Opens the spool in `directory` (made if missing), with the messages a previous run left.
    public init(directory: String, limit: Int) throws(BridgeError) {
        self.directory = directory
        self.limit = limit
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw BridgeError("spool directory \(directory): \(String(cString: strerror(errno)))")
        }
        guard let handle = opendir(directory) else { throw BridgeError("spool directory \(directory): \(String(cString: strerror(errno)))") }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".msg") { names.append(name) }
        }
        closedir(handle)
        var entries: [Entry] = []
        for name in names.sorted() {
            guard let id = UInt64(name.dropLast(4)), let bytes = readFile("\(directory)/\(name)"),
                let newline = bytes.firstIndex(of: 0x0A)
            else {
                unlink("\(directory)/\(name)")
                continue
            }
            entries.append(Entry(id: id, topic: String(decoding: bytes[..<newline], as: UTF8.self), payload: Array(bytes[(newline + 1)...])))
        }
        var counts = Counts()
        counts.queued = entries.count
        counts.bytes = entries.reduce(0) { $0 + $1.size }
        state = Mutex((entries, (entries.last?.id ?? 0) + 1, counts))
    }

    /// Adds a message at the end of the line; returns those dropped to make room.
    @discardableResult
    public func append(topic: String, payload: [UInt8]) -> [Entry] {
        let (entry, dropped) = state.withLock { state -> (Entry, [Entry]) in
            let entry = Entry(id: state.nextID, topic: topic, payload: payload)
            state.nextID += 1
            state.entries.append(entry)
            state.counts.bytes += entry.size
            var dropped: [Entry] = []
            while state.counts.bytes > limit, state.entries.count > 1 {
                let oldest = state.entries.removeFirst()
                state.counts.bytes -= oldest.size
                dropped.append(oldest)
            }
            state.counts.dropped += dropped.count
            state.counts.queued = state.entries.count
            return (entry, dropped)
        }
        let path = file(entry.id)
        let data = Array(entry.topic.utf8) + [0x0A] + entry.payload
        if let file = try? FileDescriptor.open(path + ".tmp", .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite]),
            (try? file.closeAfter({ try file.writeAll(data) })) != nil
        {
            rename(path + ".tmp", path)
        }
        for old in dropped { unlink(file(old.id)) }
        return dropped
    }

    /// The broker has the message `id`: it leaves the spool.
    public func remove(_ id: UInt64) {
        let removed = state.withLock { state -> Bool in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return false }
            state.counts.bytes -= state.entries[index].size
            state.entries.remove(at: index)
            state.counts.queued = state.entries.count
            state.counts.sent += 1
            return true
        }
        if removed { unlink(file(id)) }
    }

    /// Up to `count` messages after `id` (from the first with nil), oldest first.
    public func entries(after id: UInt64?, count: Int) -> [Entry] {
        state.withLock { state in
            Array(state.entries.lazy.filter { id == nil || $0.id > id! }.prefix(count))
        }
    }

    public var counts: Counts { state.withLock { $0.counts } }

    private func file(_ id: UInt64) -> String {
        let digits = String(id)
        return "\(directory)/\(String(repeating: "0", count: max(0, 20 - digits.count)))\(digits).msg"
    }
}

/// The whole file at `path`, or nil (with errno set) when it cannot be opened.
func readFile(_ path: String) -> [UInt8]? {
    guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
    defer { try? file.close() }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while let count = try? chunk.withUnsafeMutableBytes({ try file.read(into: $0) }), count > 0 {
        bytes += chunk[..<count]
    }
    return bytes
}

/// Why the bridge cannot go on: a message for the log and the exit status.
public struct BridgeError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
