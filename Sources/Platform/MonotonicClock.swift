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
