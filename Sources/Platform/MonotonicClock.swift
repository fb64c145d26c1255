import Glibc

/// The one clock of the capture path, the outputs and the feedback: CLOCK_MONOTONIC, the clock V4L2
/// stamps frames with, so frame times, deadlines and delays compare directly. Never set back.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (the boot).
    public static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// A moment on the one clock (`MonotonicClock`): CLOCK_MONOTONIC nanoseconds. Spans between
/// moments are Swift's `Duration`.
public struct Instant: Sendable, Hashable, Comparable {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// `seconds` after the clock's origin (scripted clocks in tests).
    public init(seconds: Double) {
        nanoseconds = UInt64(max(seconds, 0) * 1e9)
    }

    /// Now.
    public static func now() -> Instant {
        Instant(nanoseconds: MonotonicClock.nanoseconds())
    }

    /// Seconds since the clock's origin, for arithmetic with settings given in seconds.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The span from `rhs` to `lhs`, negative when `rhs` is later.
    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .nanoseconds(Int64(bitPattern: lhs.nanoseconds &- rhs.nanoseconds))
    }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: UInt64(bitPattern: Int64(bitPattern: lhs.nanoseconds) &+ rhs.nanoseconds))
    }
}

extension Duration {
    /// The span in seconds.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The span in whole nanoseconds.
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
