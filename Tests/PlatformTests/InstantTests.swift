import Platform
import Testing

/// The one clock's moments and the spans between them.
@Suite struct InstantTests {
    @Test func spansBetweenMomentsAreDurationsEitherWay() {
        let start = Instant(seconds: 2)
        let later = start + .milliseconds(1500)
        #expect(later.nanoseconds == 3_500_000_000)
        #expect(later - start == .milliseconds(1500))
        #expect(start - later == .milliseconds(-1500), "an earlier moment gives a negative span, not a trap")
        #expect((later - start).seconds == 1.5)
        #expect(later > start)
        #expect(Instant(seconds: -1).nanoseconds == 0, "scripted clocks start at the origin")
    }

    @Test func nowNeverGoesBack() {
        let first = Instant.now()
        #expect(Instant.now() >= first)
    }
}
