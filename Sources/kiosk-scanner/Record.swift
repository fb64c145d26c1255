import ArgumentParser
import Capture
import Codes
import FoundationEssentials
import Platform
import ScannerProtocol
import SystemPackage

/// `kiosk-scanner record DIR --seconds N`: the daemon's frames as PGM files plus an index of times
/// and reads, which `camera.device: replay:DIR` plays back at a desk.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record the running daemon's frames to DIR (PGM files and index.json), for replay:DIR.",
        discussion: """
            Frames come at the camera's rate while the disk keeps up; frames missed meanwhile are counted. \
            Recording stops before DIR takes more than --max-megabytes or leaves less than \
            --keep-free-megabytes free on its file system, and refuses to start if that is already so.
            """
    )

    @Argument(help: "The directory to record into (created; must be empty).")
    var directory: String

    @Option(help: "How long to record.")
    var seconds: Double = 10

    @Option(help: "The most the recording may take on disk.")
    var maxMegabytes = 1024

    @Option(help: "Space left free on the file system, whatever --max-megabytes says.")
    var keepFreeMegabytes = 256

    @OptionGroup var daemon: DaemonSocket

    func validate() throws {
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be more than 0 and at most 3600") }
        guard maxMegabytes > 0 else { throw ValidationError("--max-megabytes must be positive") }
    }

    func run() throws {
        try prepareDirectory()
        let budget = DiskBudget(directory: directory, maxBytes: Int64(maxMegabytes) << 20, keepFreeBytes: Int64(keepFreeMegabytes) << 20)
        if let problem = budget.problem(adding: 0) {
            Scan.fail("record: refusing to start: \(problem)")
            throw ExitCode(1)
        }
        let connection = try daemon.connectAsTool()
        let folder: FileDescriptor
        do {
            folder = try FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            Scan.fail("record: cannot open \(directory): \(error)")
            throw ExitCode(2)
        }
        defer { try? folder.close() }
        connection.send("record \(seconds)")
        var index = RecordingIndex()
        var budgetLeft = budget
        var stopped: String?
        var ended = false
        let encoder = Self.indexEncoder()
        // What index.json will take: room for it is kept free before each frame is written, so
        // that the frames never crowd out the index that makes them usable.
        var indexBytes = 256
        while let event = connection.nextEvent() {
            switch event.envelope.type {
            case "reply" where event.envelope.command == "record":
                guard let reply = event.decode(Reply.self), reply.ok else {
                    Scan.fail("record: \(event.decode(Reply.self)?.error ?? "refused")")
                    throw ExitCode(1)
                }
            case "frame":
                guard let frame = event.decode(FrameEvent.self), let data = frame.pgm(luma: event.luma) else { continue }
                let number = String(index.frames.count + 1)
                let name = "frame-" + String(repeating: "0", count: max(0, 6 - number.count)) + number + ".pgm"
                let entry = RecordingIndex.Entry(file: name, sequence: frame.sequence, timestampNs: frame.timestampNs, reads: frame.reads)
                let entryBytes = ((try? encoder.encode(entry).count) ?? 1024) + 16
                if let problem = budgetLeft.problem(adding: DiskBudget.onDisk(data.count) + DiskBudget.onDisk(indexBytes + entryBytes)) {
                    stopped = problem
                    break
                }
                do throws(Errno) {
                    try AtomicFile.write(data, named: name, in: folder.rawValue, permissions: [.ownerReadWrite, .groupRead, .otherRead], durable: false)
                } catch {
                    stopped = "cannot write \(directory)/\(name): \(error.description)"
                    break
                }
                budgetLeft.used += DiskBudget.onDisk(data.count)
                indexBytes += entryBytes
                index.frames.append(entry)
            case "record-end":
                index.missedFrames += event.decode(RecordEnd.self)?.skipped ?? 0
                ended = true
            default:
                continue
            }
            if ended || stopped != nil { break }
        }
        let removed = try save(&index, in: folder, encoder: encoder)
        if removed > 0 { stopped = (stopped ?? "the disk filled up") + "; \(removed) frames removed to make room for index.json" }
        let reads = index.frames.reduce(0) { $0 + $1.reads.count }
        print("\(directory): \(index.frames.count) frames, \(reads) reads, \(index.missedFrames) frames missed, \(budgetLeft.used >> 10) KiB")
        if let stopped {
            Scan.fail("record: stopped early: \(stopped)")
            throw ExitCode(1)
        }
        if !ended {
            Scan.fail("record: the daemon closed the connection before the recording ended")
            throw ExitCode(1)
        }
    }

    static func indexEncoder() -> JSONEncoder {
        let encoder = JSONEncoder.forEvents()
        encoder.outputFormatting.insert(.prettyPrinted)
        return encoder
    }

    /// Writes index.json whole (`AtomicFile`). Should the disk still be too full for it, the newest
    /// frames are removed until it fits: an index that lists every frame on disk is worth more than
    /// frames nothing lists. Returns how many frames were removed.
    private func save(_ index: inout RecordingIndex, in folder: FileDescriptor, encoder: JSONEncoder) throws -> Int {
        var removed = 0
        while true {
            do throws(Errno) {
                guard let data = try? encoder.encode(index) else { throw Errno.invalidArgument }
                try AtomicFile.write(data, named: "index.json", in: folder.rawValue, permissions: [.ownerReadWrite, .groupRead, .otherRead])
                return removed
            } catch {
                guard error == .noSpace || error == .diskQuotaExceeded, let last = index.frames.popLast() else {
                    Scan.fail("record: cannot write \(directory)/index.json: \(error.description)")
                    throw ExitCode(1)
                }
                try? FileSystem.remove(last.file, in: folder)
                removed += 1
            }
        }
    }

    private func prepareDirectory() throws {
        let manager = FileManager.default
        if let existing = try? manager.contentsOfDirectory(atPath: directory), !existing.isEmpty {
            Scan.fail("record: \(directory) is not empty; a recording needs a directory of its own")
            throw ExitCode(2)
        }
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            Scan.fail("record: cannot create \(directory): \(error)")
            throw ExitCode(2)
        }
    }
}

/// How much a recording may still write: its own limit, and the free space it must leave.
struct DiskBudget {
    let directory: String
    let maxBytes: Int64
    let keepFreeBytes: Int64
    var used: Int64 = 0

    /// What a file of `bytes` takes on disk: whole 4 KiB blocks.
    static func onDisk(_ bytes: Int) -> Int64 { (Int64(bytes) + 4095) & ~4095 }

    /// Why writing `bytes` more is not allowed, or nil when it is.
    func problem(adding bytes: Int64) -> String? {
        if used + bytes > maxBytes {
            return "the recording would exceed --max-megabytes \(maxBytes >> 20)"
        }
        guard let free = try? FileSystem.availableBytes(at: directory) else { return "cannot read the free space of \(directory)" }
        if free - bytes < keepFreeBytes {
            return "\(directory) has \(free >> 20) MiB free and must keep \(keepFreeBytes >> 20) MiB free (--keep-free-megabytes)"
        }
        return nil
    }
}

extension FrameEvent {
    /// The frame as a binary PGM file; nil when `luma` does not hold `width` × `height` bytes.
    func pgm(luma: Data?) -> Data? {
        guard let luma, width > 0, height > 0, luma.count == width * height else { return nil }
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        data.append(luma)
        return data
    }
}
