import Codes
import Platform
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The spool's directory, held open: every file in it is reached relative to that descriptor, so
/// a directory renamed or replaced after the checks at start is never written to. Nothing in it is
/// trusted: an entry is opened only if it is a regular file with one link, never through a symlink
/// (`O_NOFOLLOW`) and never waiting on a FIFO (`O_NONBLOCK`), and read up to a size limit.
final class SpoolDirectory: Sendable {
    let path: String
    let descriptor: Int32
    /// `quarantine/` inside it, opened the first time an entry goes there: nil before, -1 when it
    /// cannot be made (bad entries are then only skipped).
    private let quarantine = Mutex<Int32?>(nil)

    /// Where bad entries are moved, inside the spool.
    static let quarantineName = "quarantine"

    /// Opens `path`, creating it and its missing parents (mode 0700). Refuses a directory another
    /// user owns or that its group or others may write: anyone who can put a file there could
    /// have the bridge publish it as this scanner.
    init(path: String) throws(BridgeError) {
        try Self.makeDirectories(path)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw BridgeError("spool directory \(path): \(Errno(rawValue: errno).description)") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = Errno(rawValue: errno).description
            close(fd)
            throw BridgeError("spool directory \(path): \(reason)")
        }
        let mode = String(info.st_mode & 0o7777, radix: 8)
        if info.st_uid != geteuid() {
            close(fd)
            throw BridgeError(
                "spool directory \(path) belongs to uid \(info.st_uid), not to the bridge's user (uid \(geteuid())): that user could plant messages the bridge would publish; chown it to the bridge's user, or set mqtt.spool_dir to a directory of the bridge's own"
            )
        }
        if info.st_mode & 0o022 != 0 {
            close(fd)
            throw BridgeError(
                "spool directory \(path) is writable by its group or others (mode \(mode)): they could plant messages the bridge would publish; chmod 700 \(path)"
            )
        }
        self.path = path
        descriptor = fd
    }

    deinit {
        close(descriptor)
        if let fd = quarantine.withLock({ $0 }), fd >= 0 { close(fd) }
    }

    /// `mkdir -p` with mode 0700 for each directory made; existing ones are left as they are.
    private static func makeDirectories(_ path: String) throws(BridgeError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw BridgeError(
                    "spool directory \(path): cannot create \(prefix): \(Errno(rawValue: errno).description) (set mqtt.spool_dir to a directory the bridge's user may create)"
                )
            }
        }
    }

    /// Every name in the directory but `.` and `..`, as raw bytes (a name need not be UTF-8).
    func names() throws(BridgeError) -> [[UInt8]] {
        let copy = dup(descriptor)
        guard copy >= 0, let handle = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw BridgeError("spool directory \(path): \(Errno(rawValue: errno).description)")
        }
        defer { closedir(handle) }
        rewinddir(handle)
        var names: [[UInt8]] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names
    }

    /// What the name is, without following a symlink: a regular file (with its size and link
    /// count), or why it is not one.
    func kind(of name: [UInt8]) -> Result<stat, SpoolProblem> {
        var info = stat()
        guard withName(name, { fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else {
            return .failure(SpoolProblem("cannot be examined: \(Errno(rawValue: errno).description)"))
        }
        return Self.regular(info)
    }

    private static func regular(_ info: stat) -> Result<stat, SpoolProblem> {
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: return .failure(SpoolProblem("a symbolic link"))
        case S_IFIFO: return .failure(SpoolProblem("a FIFO"))
        case S_IFDIR: return .failure(SpoolProblem("a directory"))
        default: return .failure(SpoolProblem("not a regular file"))
        }
        // A hard link could be a file from anywhere on this file system.
        guard info.st_nlink == 1 else { return .failure(SpoolProblem("a file with \(info.st_nlink) hard links")) }
        return .success(info)
    }

    /// The whole entry, if it is a regular file of at most `limit` bytes.
    func read(_ name: [UInt8], limit: Int) -> Result<[UInt8], SpoolProblem> {
        let fd = withName(name) { openat(descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard fd >= 0 else {
            let error = Errno(rawValue: errno)
            return .failure(SpoolProblem(error == .tooManySymbolicLinkLevels ? "a symbolic link" : "cannot be opened: \(error.description)"))
        }
        defer { close(fd) }
        // Checked again on what was opened: the name may have been swapped since `kind(of:)`.
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(SpoolProblem("cannot be examined: \(Errno(rawValue: errno).description)")) }
        if case .failure(let problem) = Self.regular(info) { return .failure(problem) }
        guard info.st_size <= limit else { return .failure(SpoolProblem("\(info.st_size) bytes, more than an entry may hold (\(limit))")) }
        // One byte more than the limit is asked for: a file that grew since fstat shows as too big.
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { return .failure(SpoolProblem("cannot be read: \(Errno(rawValue: errno).description)")) }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { return .failure(SpoolProblem("more than an entry may hold (\(limit) bytes)")) }
        return .success(Array(bytes[..<count]))
    }

    /// Writes the entry `name` whole (`AtomicFile`; not synced: see `Spool`).
    func write(_ bytes: [UInt8], name: String) throws(Errno) {
        try AtomicFile.write(bytes, named: name, in: descriptor, permissions: [.ownerReadWrite], durable: false)
    }

    /// Gives the entry `name` the name `newName`, replacing what has that name.
    func rename(_ name: String, to newName: String) -> Result<Void, Errno> {
        renameat(descriptor, name, descriptor, newName) == 0 ? .success(()) : .failure(Errno(rawValue: errno))
    }

    func remove(_ name: [UInt8]) {
        _ = withName(name) { unlinkat(descriptor, $0, 0) }
    }

    /// Moves `name` into `quarantine/` (made 0700 on first use) under a name of its own; false when
    /// it cannot be moved (the caller then skips it for this run).
    func quarantine(_ name: [UInt8], serial: Int) -> Bool {
        let folder = quarantine.withLock { fd in
            if fd == nil {
                _ = mkdirat(descriptor, Self.quarantineName, 0o700)
                // Never through a symlink planted under that name.
                fd = openat(descriptor, Self.quarantineName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            return fd!
        }
        guard folder >= 0 else { return false }
        // Time and serial in front keep names apart; the original is cut so the whole fits NAME_MAX.
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let target = Array("\(time.tv_sec)-\(getpid())-\(serial)-".utf8) + name.prefix(200)
        return withName(name) { from in withName(target) { renameat(descriptor, from, folder, $0) } } == 0
    }

    private func withName<R>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (name + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }
}

/// Why a spool entry is not one of ours, for the log.
struct SpoolProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
