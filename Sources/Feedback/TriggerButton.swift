import Dispatch
import FoundationEssentials
import Glibc
import Logging
import Platform
import Synchronization

/// The trigger button: edge events on a thread of its own, debounced, each press reported once.
final class TriggerButton: Sendable {
    private let line: InputLine
    private let window: UInt64
    private let onPress: @Sendable () -> Void
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(line: InputLine, debounceSeconds: Double, logger: Logger, onPress: @escaping @Sendable () -> Void) {
        self.line = line
        window = UInt64(debounceSeconds * 1e9)
        self.logger = logger
        self.onPress = onPress
        OwnThread.start(name: "trigger-button") { [self] in watch() }
    }

    /// Stops watching and releases the line (within one poll interval).
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        done.wait()
    }

    private func watch() {
        var debouncer = Debouncer(window: window)
        var settleAt: UInt64?
        while !stopping.load(ordering: .relaxed) {
            let now = MonotonicClock.nanoseconds()
            let wait = settleAt.map { Int32(clamping: ($0 > now ? $0 - now : 0) / 1_000_000 + 1) } ?? 200
            if let edge = line.nextEdge(milliseconds: min(wait, 200)) {
                if debouncer.edge(active: edge.active, at: edge.timestamp) {
                    logger.info("trigger button pressed")
                    onPress()
                }
                if debouncer.needsSettle && settleAt == nil { settleAt = MonotonicClock.nanoseconds() + window }
            } else if let due = settleAt, MonotonicClock.nanoseconds() >= due {
                // Bounce may have hidden the last edge: the level after the window decides.
                settleAt = nil
                if let level = line.active, debouncer.settle(active: level) {
                    logger.info("trigger button pressed")
                    onPress()
                }
            }
        }
        line.release()
        done.signal()
    }
}
