import Platform
import Synchronization

/// The sd_notify protocol without libsystemd: datagrams to $NOTIFY_SOCKET.
public final class SystemdNotifier: Sendable {
    private let address: String?
    /// WATCHDOG_USEC from systemd, in nanoseconds; pings go out at a quarter of it.
    private let watchdogInterval: UInt64?
    private let lastPing = Mutex<UInt64>(0)

    /// Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from the environment.
    public init() {
        address = CurrentProcess.environment("NOTIFY_SOCKET")
        let pidMatches = CurrentProcess.environment("WATCHDOG_PID").map { Int32($0) == CurrentProcess.id } ?? true
        if pidMatches, let usec = CurrentProcess.environment("WATCHDOG_USEC").flatMap({ UInt64($0) }), usec > 0 {
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
        try? UnixAddress.send(datagram: message, to: address)
    }
}
