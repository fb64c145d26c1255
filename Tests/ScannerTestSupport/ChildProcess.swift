// ChildProcess.swift — the programs a test starts, through posix_spawn(3).
//
// Foundation's `Process.run()` on Linux lists /proc/self/fd to find the descriptors to close in
// the child, and reads each entry with a fixed 256-byte copy of `d_name` past the end of a short
// record (swiftlang/swift-corelibs-foundation#5472, fixed upstream after Swift 6.3). Now and then
// that crashes the whole test process inside `Process.run()`; a CI run of this suite died of it.
// glibc's posix_spawn closes the same descriptors with posix_spawn_file_actions_addclosefrom_np
// and needs no listing, so the tests start their programs here instead. `ChildProcess` keeps the
// part of `Process`'s interface that the tests use, so a call site changes only its type.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Calls a glibc function that Swift's Glibc module hides behind _GNU_SOURCE.
func withGNUSymbol<T>(_ name: String, as type: T.Type, _ body: (T?) -> Void) {
    let handle = dlopen(nil, RTLD_NOW)
    defer { if let handle { dlclose(handle) } }
    body(dlsym(handle, name).map { unsafeBitCast($0, to: type) })
}

/// Starts `executable` with `arguments` and `environment`. `prepare` lays out the child's low
/// descriptors; every descriptor from `firstClosed` up is closed in the child, so nothing the
/// test process holds open (a socket, the far end of another test's pipe) leaks into it. The
/// child starts with no signal blocked and the usual ones at their defaults: a test's worker
/// thread blocks SIGTERM, and the runner may ignore SIGPIPE.
func spawn(
    _ executable: String, _ arguments: [String], environment: [String: String], firstClosed: Int32 = 3,
    ownProcessGroup: Bool = false, prepare: (inout posix_spawn_file_actions_t) -> Void
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    prepare(&actions)
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    withGNUSymbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self) { addCloseFrom in
        _ = addCloseFrom?(&actions, firstClosed)  // glibc >= 2.34
    }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for sig in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD] { sigaddset(&defaults, sig) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if ownProcessGroup {
        posix_spawnattr_setpgroup(&attributes, 0)
        flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))

    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard rc == 0 else { throw Tool.Failure(description: "cannot start \(executable): \(String(cString: strerror(rc)))") }
    return pid
}

/// A program a test starts and waits for: `Process`'s interface, without its crash.
public final class ChildProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    /// The whole environment; nil inherits the test process's.
    public var environment: [String: String]?
    /// Each is a `Pipe` (the child gets the matching end, which is closed here once it runs), a
    /// `FileHandle` (`FileHandle.nullDevice` for /dev/null), or nil for the test process's own.
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    /// The wait status, once reaped.
    private var status: Int32?

    public init() {}

    public var processIdentifier: Int32 { lock.withLock { pid } }

    public func run() throws {
        guard let executable = executableURL?.path else { throw Tool.Failure(description: "no executable to run") }
        var pipeEnds: [FileHandle] = []
        var layout: [(source: Int32, target: Int32)] = []
        var discarded: [Int32] = []
        for (target, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case let handle as FileHandle where handle === FileHandle.nullDevice:
                discarded.append(target)  // a handle with no descriptor of its own
            case let pipe as Pipe:
                let end = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                pipeEnds.append(end)
                layout.append((end.fileDescriptor, target))
            case let handle as FileHandle:
                layout.append((handle.fileDescriptor, target))
            case nil:
                break
            default:
                throw Tool.Failure(description: "standard stream \(target) is neither a Pipe nor a FileHandle")
            }
        }
        // Moved above the standard three first, so that one dup2 cannot clobber another's source.
        let moved = layout.map { (fcntl($0.source, F_DUPFD_CLOEXEC, 10), $0.target) }
        defer { for (fd, _) in moved where fd >= 0 { close(fd) } }
        guard moved.allSatisfy({ $0.0 >= 0 }) else { throw Tool.Failure(description: "dup: \(String(cString: strerror(errno)))") }
        let started = try spawn(executable, arguments, environment: environment ?? ProcessInfo.processInfo.environment) { actions in
            for (source, target) in moved { posix_spawn_file_actions_adddup2(&actions, source, target) }
            for target in discarded { posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0) }
        }
        lock.withLock { pid = started }
        for end in pipeEnds { try? end.close() }
    }

    /// Reaps the child if it has exited; true while it runs. Call with the lock held.
    private func reap() -> Bool {
        guard status == nil, pid > 0 else { return false }
        var wait: Int32 = 0
        var rc: pid_t
        repeat { rc = waitpid(pid, &wait, WNOHANG) } while rc == -1 && errno == EINTR
        if rc == pid { status = wait }
        return rc == 0
    }

    public var isRunning: Bool { lock.withLock { reap() } }

    /// Blocks until the child exits. Waits without reaping, outside the lock, so that `isRunning`
    /// on another thread does not block behind it; the exited child is then reaped at once.
    public func waitUntilExit() {
        let child = processIdentifier
        guard child > 0 else { return }
        var info = siginfo_t()
        while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        _ = lock.withLock { reap() }
    }

    /// The exit status, or the signal that ended it, as `Process` gives it; -1 while it runs.
    public var terminationStatus: Int32 {
        lock.withLock {
            guard let status else { return -1 }
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : signal
        }
    }

    /// Sends SIGTERM.
    public func terminate() {
        let child = processIdentifier
        if child > 0 && isRunning { kill(child, SIGTERM) }
    }
}
