import Feedback
import Testing

@Suite struct DebouncerTests {
    static let ms: UInt64 = 1_000_000

    /// Feeds edges (to active, at ms) and returns which were presses.
    static func presses(_ debouncer: inout Debouncer, _ edges: [(Bool, UInt64)]) -> [Bool] {
        edges.map { debouncer.edge(active: $0.0, at: $0.1 * ms) }
    }

    @Test func bounceWithinTheWindowIsOnePress() {
        var debouncer = Debouncer(window: 20 * Self.ms)
        #expect(Self.presses(&debouncer, [(true, 1000), (false, 1002), (true, 1004)]) == [true, false, false])
        let settled = debouncer.settle(active: true)
        #expect(!settled, "still held after the window: the same press")
        #expect(Self.presses(&debouncer, [(false, 1200), (true, 1500)]) == [false, true], "a release, then the next press")
    }

    @Test func aTapShorterThanTheWindowIsSettledByTheLevel() {
        var debouncer = Debouncer(window: 20 * Self.ms)
        #expect(Self.presses(&debouncer, [(true, 0), (false, 5)]) == [true, false])
        #expect(debouncer.pressed && debouncer.needsSettle)
        let settled = debouncer.settle(active: false)
        #expect(!settled && !debouncer.pressed, "the level read after the window releases it")
        #expect(Self.presses(&debouncer, [(true, 30)]) == [true], "so the next press is seen")
    }

    @Test func aPressHiddenByBounceIsFoundBySettling() {
        var debouncer = Debouncer(window: 20 * Self.ms)
        // A release, then a new press 3 ms later, inside the release's window.
        #expect(Self.presses(&debouncer, [(true, 0), (false, 40), (true, 43)]) == [true, false, false])
        let settled = debouncer.settle(active: true)
        #expect(settled, "the level shows the press")
    }

    @Test func repeatedEdgesOfTheSameDirectionAreNotPresses() {
        var debouncer = Debouncer(window: 0)
        #expect(Self.presses(&debouncer, [(true, 0), (true, 100)]) == [true, false])
    }
}
