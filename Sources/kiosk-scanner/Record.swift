import ArgumentParser
import FoundationEssentials
import ScannerCore
import ScannerProtocol
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

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

    @Option(help: "The socket path.")
    var socket = SocketConfig().path

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
        guard let connection = SocketLines(path: socket) else {
            Scan.fail("cannot connect to \(socket): \(Errno(rawValue: errno).description); is the daemon running?")
            throw ExitCode(2)
        }
        connection.declareTool()
        connection.send("record \(seconds)")
        var index = RecordingIndex()
        var budgetLeft = budget
        var stopped: String?
        var ended = false
        while let event = connection.nextEvent() {
            switch event.envelope.type {
            case "reply" where event.envelope.command == "record":
                guard let reply = event.decode(Reply.self), reply.ok else {
                    Scan.fail("record: \(event.decode(Reply.self)?.error ?? "refused")")
                    throw ExitCode(1)
                }
            case "frame":
                guard let frame = event.decode(FrameEvent.self), let data = frame.pgm(luma: event.luma) else { continue }
                if let problem = budgetLeft.problem(adding: Int64(data.count)) {
                    stopped = problem
                    break
                }
                let number = String(index.frames.count + 1)
                let name = "frame-" + String(repeating: "0", count: max(0, 6 - number.count)) + number + ".pgm"
                guard FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: data) else {
                    stopped = "cannot write \(directory)/\(name)"
                    break
                }
                budgetLeft.used += Int64(data.count)
                index.frames.append(RecordingIndex.Entry(file: name, sequence: frame.sequence, timestampNs: frame.timestampNs, reads: frame.reads))
            case "record-end":
                index.missedFrames += event.decode(RecordEnd.self)?.skipped ?? 0
                ended = true
            default:
                continue
            }
            if ended || stopped != nil { break }
        }
        try write(index, to: "\(directory)/index.json")
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

    private func write(_ index: RecordingIndex, to path: String) throws {
        let encoder = JSONEncoder.forEvents()
        encoder.outputFormatting.insert(.prettyPrinted)
        guard let data = try? encoder.encode(index), FileManager.default.createFile(atPath: path, contents: data) else {
            Scan.fail("record: cannot write \(path)")
            throw ExitCode(1)
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

    /// Why writing `bytes` more is not allowed, or nil when it is.
    func problem(adding bytes: Int64) -> String? {
        if used + bytes > maxBytes {
            return "the recording would exceed --max-megabytes \(maxBytes >> 20)"
        }
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return "cannot read the free space of \(directory)" }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
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
