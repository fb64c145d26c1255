import Synchronization

/// What waits to go to one browser: messages in order (reads, state, replies, health), and the
/// newest view, which goes only once the browser has drawn the one before and said so
/// (`{"type":"next"}`). A view that a newer one replaces before it could go is skipped: one frame
/// in flight per browser, whatever the daemon or the network does.
final class ViewFeed: Sendable {
    private struct State {
        var messages: [String] = []
        var view: String?
        var viewInFlight = false
        var finished = false
        var counts = Counts()
    }

    /// Views sent and skipped, and messages dropped for a browser that stopped reading.
    struct Counts: Sendable, Equatable {
        var viewsSent = 0
        var viewsSkipped = 0
        var messagesDropped = 0
    }

    /// Messages kept for a browser that does not read; past it the oldest go.
    static let messageCapacity = 512

    private let state = Mutex(State())
    private let wake: AsyncStream<Void>.Continuation
    /// A signal for the browser's writer after each change: then `take()`.
    let wakes: AsyncStream<Void>

    init() {
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The newest view from the daemon, replacing one that has not gone yet.
    func offer(view: String) {
        state.withLock { state in
            if state.view != nil { state.counts.viewsSkipped += 1 }
            state.view = view
        }
        wake.yield()
    }

    /// A message to send in order.
    func post(_ message: String) {
        state.withLock { state in
            if state.messages.count >= Self.messageCapacity {
                state.messages.removeFirst()
                state.counts.messagesDropped += 1
            }
            state.messages.append(message)
        }
        wake.yield()
    }

    /// The browser drew the last view: the next may go.
    func drawn() {
        state.withLock { $0.viewInFlight = false }
        wake.yield()
    }

    /// No more input: the writer sends what is left and stops.
    func finish() {
        state.withLock { $0.finished = true }
        wake.yield()
    }

    /// What to send now, in order, and whether the feed is done after it.
    func take() -> (messages: [String], done: Bool) {
        state.withLock { state in
            var batch = state.messages
            state.messages = []
            if !state.viewInFlight, let view = state.view {
                batch.append(view)
                state.view = nil
                state.viewInFlight = true
                state.counts.viewsSent += 1
            }
            return (batch, state.finished)
        }
    }

    var counts: Counts { state.withLock { $0.counts } }
}

/// The browsers streaming now, for what goes to all of them (health samples).
final class Viewers: Sendable {
    private let feeds = Mutex<[ObjectIdentifier: ViewFeed]>([:])

    func add(_ feed: ViewFeed) { feeds.withLock { $0[ObjectIdentifier(feed)] = feed } }

    func remove(_ feed: ViewFeed) { _ = feeds.withLock { $0.removeValue(forKey: ObjectIdentifier(feed)) } }

    func post(_ message: String) {
        for feed in feeds.withLock({ Array($0.values) }) { feed.post(message) }
    }

    var count: Int { feeds.withLock { $0.count } }
}
