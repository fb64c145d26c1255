import Platform
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The sd_notify protocol without libsystemd: datagrams to $NOTIFY_SOCKET.
public final class SystemdNotifier: Sendable {
    private let address: String?
    /// WATCHDOG_USEC from systemd, in nanoseconds; pings go out at a quarter of it.
    private let watchdogInterval: UInt64?
    private let lastPing = Mutex<UInt64>(0)

    /// Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from the environment.
    public init() {
        address = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
        let pidMatches = getenv("WATCHDOG_PID").map { Int32(String(cString: $0)) == getpid() } ?? true
        if pidMatches, let usec = getenv("WATCHDOG_USEC").flatMap({ UInt64(String(cString: $0)) }), usec > 0 {
            watchdogInterval = usec * 1000 / 4
        } else {
            watchdogInterval = nil
        }
    }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func reloading() { send("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.nanoseconds() / 1000)") }
    public func stopping() { send("STOPPING=1") }

    /// Tells systemd the capture loop made progress; sent at most every quarter of the watchdog period.
    public func watchdog() {
        guard let interval = watchdogInterval else { return }
        let now = MonotonicClock.nanoseconds()
        let due = lastPing.withLock { last in
            guard now - last >= interval else { return false }
            last = now
            return true
        }
        if due { send("WATCHDOG=1") }
    }

    /// Sends one datagram; a missing or broken socket is ignored, as sd_notify does.
    public func send(_ message: String) {
        guard let address, !address.isEmpty else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        let socket = FileDescriptor(rawValue: fd)
        defer { try? socket.close() }
        _ = message.withCString { text in
            UnixAddress.with(address) { sendto(socket.rawValue, text, strlen(text), Int32(MSG_NOSIGNAL), $0, $1) }
        }
    }
}
