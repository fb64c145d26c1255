import Platform
import Synchronization
import Testing

@testable import Console

/// Sessions end at sign-out, after their lifetime, or when idle; failed sign-ins are limited per
/// address. Time is a scripted clock.
@Suite struct SessionsTests {
    final class Clock: Sendable {
        let time = Mutex(Instant(seconds: 1000))
        func advance(_ seconds: Double) { time.withLock { $0 = $0 + .seconds(seconds) } }
        var now: @Sendable () -> Instant { { self.time.withLock { $0 } } }
    }

    @Test func aSessionEndsWhenIdleOrOldOrSignedOut() {
        let clock = Clock()
        let sessions = Sessions(lifetime: .seconds(12 * 3600), idleTimeout: .seconds(1800), now: clock.now)
        let session = sessions.start(user: "installer", mayControl: true)
        #expect(session.id.count == 64 && session.id.allSatisfy(\.isHexDigit))
        #expect(sessions.start(user: "installer", mayControl: true).id != session.id, "every sign-in gets its own id")
        clock.advance(1700)
        #expect(sessions.use(session.id)?.user == "installer")
        clock.advance(1700)
        #expect(sessions.use(session.id) != nil, "used 1700 s ago: still live")
        clock.advance(1801)
        #expect(sessions.use(session.id) == nil, "idle too long")

        let long = sessions.start(user: "viewer", mayControl: false)
        for _ in 0..<30 {
            clock.advance(1500)
            _ = sessions.use(long.id)
        }
        #expect(sessions.use(long.id) == nil, "12 hours after sign-in, however busy")

        let ended = sessions.start(user: "viewer", mayControl: false)
        sessions.end(ended.id)
        #expect(sessions.use(ended.id) == nil && sessions.use("not-an-id") == nil)
    }

    @Test func failedSignInsAreLimitedPerAddress() {
        let clock = Clock()
        let limits = SignInLimits(limit: 3, window: .seconds(900), now: clock.now)
        for _ in 0..<3 {
            #expect(limits.allows("192.0.2.7"))
            limits.failed("192.0.2.7")
            clock.advance(10)
        }
        #expect(!limits.allows("192.0.2.7") && limits.allows("192.0.2.8"), "only the guessing address is refused")
        clock.advance(880)
        #expect(limits.allows("192.0.2.7"), "its first failure left the window")
    }
}
