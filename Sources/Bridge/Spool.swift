import Codes
import FoundationEssentials
import Logging
import Synchronization
import SystemPackage

/// Reads waiting for the broker: one file per read in a directory, named by its place in line, so
/// that they survive a restart of the bridge and go out in the order they came. Bounded in bytes,
/// at start as when a read comes: past the limit the oldest are dropped and counted. A read leaves
/// once the broker has it.
///
/// An entry, `NNNNNNNNNNNNNNNNNNNN.scan` (20 digits), holds the scan event as published and nothing
/// else: the topic comes from the config, never from the spool. What is found there at start is
/// untrusted input (`SpoolDirectory`): an entry that is not a regular file, has a name not exactly
/// ours or out of range, is too big, or is not a scan event is moved to `quarantine/`, counted
/// and logged once, and delivery goes on without it. Entries of the older format
/// (`NNNN.msg`: topic line, then the payload) are taken over when their topic is this scanner's
/// scan topic, else quarantined.
///
/// Files are renamed into place whole, but not synced: a crash of the bridge loses nothing, a power
/// cut may lose the last reads (an fsync per read would wear an SD card for every code).
public final class Spool: Sendable {
    /// One waiting read: the scan event as it is published.
    public struct Entry: Sendable, Equatable {
        public let id: UInt64
        public let payload: [UInt8]

        var size: Int { payload.count }
    }

    /// What the spool holds and has done, for `state` and the metrics.
    public struct Counts: Sendable, Equatable, Codable {
        public var queued = 0
        public var bytes = 0
        /// Dropped because the spool was full, oldest first.
        public var dropped = 0
        /// Taken by the broker since the bridge started.
        public var sent = 0
        /// Entries that were not reads of ours, moved to `quarantine/` (or skipped) since the start.
        public var quarantined = 0
    }

    /// The most one entry may hold: a scan event is a few KiB even for the largest QR code.
    public static let entryLimit = 256 << 10
    /// Ids stay far below `UInt64.max`, so that counting on from the last never overflows.
    static let idRange: ClosedRange<UInt64> = 1...(1 << 62)

    public let directory: String
    public let limit: Int
    private let folder: SpoolDirectory
    private let logger: Logger
    private let state: Mutex<(entries: [Entry], nextID: UInt64, counts: Counts, writeFailing: Bool)>

    /// Opens the spool in `directory` (made with its parents if missing, and refused when another
    /// user owns it or others may write it) and takes over the reads a previous run left, at most
    /// `limit` bytes of them, the newest; `scanTopic` is the only topic an entry of the older format
    /// may name.
    public init(directory: String, limit: Int, scanTopic: String, logger: Logger = Logger(label: "kiosk-scanner-mqtt")) throws(BridgeError) {
        self.directory = directory
        self.limit = limit
        self.logger = logger
        folder = try SpoolDirectory(path: directory)
        var newestFirst: [Entry] = []
        var bytes = 0
        var ids: Set<UInt64> = []
        var quarantined = 0
        var dropped = 0
        // Newest first, so that past the bound the older entries are removed without being kept: a
        // spool larger than `limit` (planted, or left under a larger spool_size) never costs more
        // memory than the bound, as `append` keeps it.
        for name in try folder.names().sorted(by: { $0.lexicographicallyPrecedes($1) }).reversed() {
            switch Self.recover(name, from: folder, scanTopic: scanTopic) {
            case .entry(let entry, let legacy):
                // An old entry beside the copy a run rewrote before it stopped: one copy is enough.
                guard ids.insert(entry.id).inserted else {
                    if legacy { folder.remove(name) }
                    continue
                }
                if dropped > 0 || (bytes + entry.size > limit && !newestFirst.isEmpty) {
                    dropped += 1
                    folder.remove(name)
                    continue
                }
                // Rewritten first, then the old file removed: a crash in between leaves both, which
                // the next start takes as one entry.
                if legacy {
                    guard (try? folder.write(entry.payload, name: Self.fileName(entry.id))) != nil else {
                        quarantined += 1
                        Self.setAside(name, SpoolProblem("cannot be rewritten"), in: folder, serial: quarantined, logger: logger)
                        continue
                    }
                    folder.remove(name)
                }
                newestFirst.append(entry)
                bytes += entry.size
            case .skip: continue
            case .bad(let problem):
                quarantined += 1
                Self.setAside(name, problem, in: folder, serial: quarantined, logger: logger)
            }
        }
        if dropped > 0 {
            logger.warning("spool \(directory) holds more than spool_size (\(limit) bytes): \(dropped) oldest reads dropped")
        }
        var entries = Array(newestFirst.reversed())
        if let last = entries.last, last.id >= Self.renumberFrom {
            entries = Self.renumber(entries, in: folder, logger: logger)
        }
        var counts = Counts()
        counts.queued = entries.count
        counts.bytes = bytes
        counts.dropped = dropped
        counts.quarantined = quarantined
        state = Mutex((entries, (entries.last?.id ?? 0) + 1, counts, false))
    }

    enum Found {
        /// A read, and whether it is of the older format (its file is then still to be rewritten).
        case entry(Entry, legacy: Bool)
        /// Ours and of no use: a temporary file left by a crash (removed), the quarantine itself.
        case skip
        case bad(SpoolProblem)
    }

    /// Past this id the ids left before the end of `idRange` are fewer than those used: the waiting
    /// reads are renumbered from 1 at start. The bridge's own count never gets this far (2^61
    /// reads); an entry planted or damaged with a high id does, and counting on from it would name
    /// new reads out of range, which the next start would quarantine instead of sending.
    static let renumberFrom: UInt64 = 1 << 61

    /// `entries` (in order) renamed to the ids 1, 2, 3...: each new name is below every old one
    /// not yet renamed, so no rename replaces a waiting read, and a crash midway leaves the order
    /// as it was. A rename that fails leaves the rest under their ids.
    private static func renumber(_ entries: [Entry], in folder: SpoolDirectory, logger: Logger) -> [Entry] {
        var renamed: [Entry] = []
        for (index, entry) in entries.enumerated() {
            let id = UInt64(index + 1)
            if id != entry.id {
                if case .failure(let error) = folder.rename(fileName(entry.id), to: fileName(id)) {
                    logger.error("spool \(folder.path): cannot renumber its reads (\(error.description)); the rest keep their ids")
                    return renamed + entries[index...]
                }
            }
            renamed.append(Entry(id: id, payload: entry.payload))
        }
        logger.notice("spool \(folder.path): ids reached \(entries.last?.id ?? 0); the \(entries.count) waiting reads renumbered from 1")
        return renamed
    }

    /// What the name in the spool is.
    private static func recover(_ name: [UInt8], from folder: SpoolDirectory, scanTopic: String) -> Found {
        let text = String(decoding: name, as: UTF8.self)
        if text == SpoolDirectory.quarantineName, case .failure(let problem) = folder.kind(of: name), problem.reason == "a directory" {
            return .skip
        }
        if text.hasPrefix("."), text.hasSuffix(".tmp"), case .success = folder.kind(of: name) {
            folder.remove(name)
            return .skip
        }
        let legacy = text.hasSuffix(".msg")
        guard let id = id(of: text) else {
            let number = text.prefix { $0.isASCII && $0.isNumber }
            let outOfRange = number.count == 20 && (text.hasSuffix(".scan") || text.hasSuffix(".msg")) && text.count == 20 + (legacy ? 4 : 5)
            return .bad(SpoolProblem(outOfRange ? "an id out of range (1 to 2^62)" : "not a spool entry's name (20 digits and .scan)"))
        }
        let bytes: [UInt8]
        switch folder.read(name, limit: entryLimit) {
        case .failure(let problem): return .bad(problem)
        case .success(let read): bytes = read
        }
        var payload = bytes[...]
        if legacy {
            guard let newline = bytes.firstIndex(of: 0x0A) else { return .bad(SpoolProblem("an old entry without a topic line")) }
            let topic = bytes[..<newline]
            guard topic.elementsEqual(scanTopic.utf8) else {
                return .bad(SpoolProblem("an old entry for another topic: \(LogText.escaped(topic, limit: 80))"))
            }
            payload = bytes[(newline + 1)...]
        }
        if let problem = check(payload) { return .bad(problem) }
        return .entry(Entry(id: id, payload: Array(payload)), legacy: legacy)
    }

    /// The id in an entry's name, if the name is exactly what `fileName` makes of it.
    static func id(of name: String) -> UInt64? {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        guard digits.count == 20, let id = UInt64(digits), idRange.contains(id) else { return nil }
        let suffix = name.dropFirst(20)
        return suffix == ".scan" || suffix == ".msg" ? id : nil
    }

    static func fileName(_ id: UInt64) -> String {
        let digits = String(id)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".scan"
    }

    /// Why `payload` is not a scan event the bridge wrote: one JSON line, an object of type scan.
    static func check(_ payload: ArraySlice<UInt8>) -> SpoolProblem? {
        struct Scan: Decodable {
            let type: String
            let seq: UInt64
        }
        guard !payload.contains(0x0A), let scan = try? JSONDecoder().decode(Scan.self, from: Data(payload)), scan.type == "scan" else {
            return SpoolProblem("not a scan event")
        }
        return nil
    }

    private static func setAside(_ name: [UInt8], _ problem: SpoolProblem, in folder: SpoolDirectory, serial: Int, logger: Logger) {
        let moved = folder.quarantine(name, serial: serial)
        logger.warning(
            "spool entry '\(LogText.escaped(name, limit: 80))' is \(problem.reason): \(moved ? "moved to \(folder.path)/\(SpoolDirectory.quarantineName)" : "skipped (it cannot be moved aside)")"
        )
    }

    /// Adds a read at the end of the line: `dropped` are those removed to make room, `stored`
    /// whether it is on disk (else it waits in memory only, and is lost if the bridge stops).
    @discardableResult
    public func append(payload: [UInt8]) -> (dropped: [Entry], stored: Bool) {
        let (entry, dropped) = state.withLock { state -> (Entry, [Entry]) in
            let entry = Entry(id: state.nextID, payload: payload)
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
        var failure: Errno?
        do throws(Errno) {
            // Only when renumbering failed (`renumberFrom`): a name out of range would be quarantined
            // by the next start, so the read waits in memory instead.
            guard Self.idRange.contains(entry.id) else { throw Errno.overflow }
            try folder.write(entry.payload, name: Self.fileName(entry.id))
        } catch {
            failure = error
        }
        for old in dropped { folder.remove(Array(Self.fileName(old.id).utf8)) }
        // Logged when writing starts failing and when it works again, not for every read.
        let changed = state.withLock { state -> Bool in
            defer { state.writeFailing = failure != nil }
            return state.writeFailing != (failure != nil)
        }
        if changed, let failure {
            logger.error("spool \(directory): cannot write a read (\(failure.description)): reads wait in memory only and are not acknowledged to the daemon")
        } else if changed {
            logger.notice("spool \(directory): reads are written again")
        }
        return (dropped, failure == nil)
    }

    /// The broker has the read `id`: it leaves the spool.
    public func remove(_ id: UInt64) {
        let removed = state.withLock { state -> Bool in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return false }
            state.counts.bytes -= state.entries[index].size
            state.entries.remove(at: index)
            state.counts.queued = state.entries.count
            state.counts.sent += 1
            return true
        }
        if removed { folder.remove(Array(Self.fileName(id).utf8)) }
    }

    /// The broker connection refused to take the read `id` at all: it is moved to the quarantine,
    /// so that it cannot hold up those behind it.
    public func setAside(_ id: UInt64, reason: String) {
        let serial = state.withLock { state -> Int? in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return nil }
            state.counts.bytes -= state.entries[index].size
            state.entries.remove(at: index)
            state.counts.queued = state.entries.count
            state.counts.quarantined += 1
            return state.counts.quarantined
        }
        guard let serial else { return }
        Self.setAside(Array(Self.fileName(id).utf8), SpoolProblem(reason), in: folder, serial: serial, logger: logger)
    }

    /// Up to `count` reads after `id` (from the first with nil), oldest first.
    public func entries(after id: UInt64?, count: Int) -> [Entry] {
        state.withLock { state in
            Array(state.entries.lazy.filter { id == nil || $0.id > id! }.prefix(count))
        }
    }

    public var counts: Counts { state.withLock { $0.counts } }
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
