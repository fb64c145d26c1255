import Platform
import Synchronization

/// Failed sign-ins by client address: past `limit` within `window`, an address is refused without
/// a password check until its oldest failure leaves the window.
final class SignInLimits: Sendable {
    private let failures = Mutex<[String: [Instant]]>([:])
    /// Failures an address may have within `window` before it is refused.
    private let limit: Int
    private let window: Duration
    private let now: @Sendable () -> Instant

    init(limit: Int, window: Duration, now: @escaping @Sendable () -> Instant = { Instant.now() }) {
        (self.limit, self.window, self.now) = (limit, window, now)
    }

    /// Whether `address` may try now.
    func allows(_ address: String) -> Bool {
        let time = now()
        return failures.withLock { all in
            all[address] = all[address]?.filter { time - $0 < window }
            return (all[address]?.count ?? 0) < limit
        }
    }

    /// Counts a failed sign-in from `address`.
    func failed(_ address: String) {
        let time = now()
        failures.withLock { all in
            // Forget addresses whose failures are all old, so that the table cannot grow without bound.
            if all.count > 4096 { all = all.filter { $0.value.contains { time - $0 < window } } }
            all[address, default: []].append(time)
        }
    }
}
