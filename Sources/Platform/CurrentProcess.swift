import Glibc
import SystemPackage

/// This process: its id, its environment, and its end (exit, or another program in its place).
public enum CurrentProcess {
    /// The process id (getpid).
    public static var id: Int32 { system_getpid() }

    /// The environment variable `name`; nil when it is not set.
    public static func environment(_ name: String) -> String? {
        system_getenv(name).map { String(cString: $0) }
    }

    /// Removes the environment variable `name`, so that child processes do not inherit it.
    public static func removeEnvironment(_ name: String) {
        _ = system_unsetenv(name)
    }

    /// Ends the process with `status`, running atexit handlers and flushing stdio.
    public static func exit(_ status: Int32) -> Never {
        system_exit(status)
    }

    /// Runs the program at `path` in this process's place with `arguments` (the first is its
    /// name) and this environment (execv). Returns only when that failed, with the reason.
    public static func execute(_ path: String, arguments: [String]) -> Errno {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        _ = argv.withUnsafeBufferPointer { system_execv(path, $0.baseAddress!) }
        return Errno(rawValue: errno)
    }

    /// Blocks the calling thread for `nanoseconds` (CLOCK_MONOTONIC); a signal does not cut it short.
    public static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        // clock_nanosleep returns the error number itself, not -1.
        while system_clock_nanosleep(&request, &remaining) == EINTR { request = remaining }
    }
}

/// Signals handled the plain POSIX way, for what UnixSignals (swift-service-lifecycle) does not
/// cover: ignoring SIGPIPE, and a thread of its own waiting for SIGTERM or SIGINT.
public enum Signals {
    /// SIGPIPE ignored: a write to a pipe or socket whose reader is gone fails with EPIPE instead
    /// of killing the process.
    public static func ignoreBrokenPipe() {
        system_signal_ignore(SIGPIPE)
    }

    /// SIGTERM and SIGINT, blocked in the calling thread and every thread it starts from then
    /// on; returned to hand to `waitForTermination` (sigwait takes them whatever mask the process
    /// was started with).
    public static func blockTermination() -> TerminationSignals {
        var set = sigset_t()
        _ = system_sigemptyset(&set)
        _ = system_sigaddset(&set, SIGTERM)
        _ = system_sigaddset(&set, SIGINT)
        _ = system_pthread_sigmask(SIG_BLOCK, &set)
        return TerminationSignals(set: set)
    }
}

/// SIGTERM and SIGINT, blocked by `Signals.blockTermination()`.
public struct TerminationSignals: Sendable {
    fileprivate let set: sigset_t

    /// Waits until one of them comes, and returns its number.
    @discardableResult
    public func wait() -> Int32 {
        var set = self.set
        var received: Int32 = 0
        _ = system_sigwait(&set, &received)
        return received
    }
}
