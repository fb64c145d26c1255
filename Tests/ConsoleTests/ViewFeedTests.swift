import Testing

@testable import Console

/// One frame in flight per browser: a view goes only after the browser drew the one before, and
/// views that came meanwhile are skipped for the newest; messages go in order beside them.
@Suite struct ViewFeedTests {
    @Test func oneViewInFlightAndTheNewestNext() {
        let feed = ViewFeed()
        feed.offer(view: "v1")
        #expect(feed.take().messages == ["v1"])
        feed.offer(view: "v2")
        feed.offer(view: "v3")
        feed.post("read")
        #expect(feed.take().messages == ["read"], "v1 is not drawn yet: no view goes")
        feed.drawn()
        #expect(feed.take().messages == ["v3"], "v2 was replaced by v3 before it could go")
        feed.drawn()
        #expect(feed.take().messages.isEmpty)
        #expect(feed.counts == ViewFeed.Counts(viewsSent: 2, viewsSkipped: 1, messagesDropped: 0))
    }

    @Test func messagesGoInOrderAndFinishingDrainsFirst() {
        let feed = ViewFeed()
        feed.post("a")
        feed.post("b")
        feed.offer(view: "v")
        feed.finish()
        let (messages, done) = feed.take()
        #expect(messages == ["a", "b", "v"] && done)
    }

    @Test func aBrowserThatDoesNotReadLosesTheOldestMessages() {
        let feed = ViewFeed()
        for index in 0..<(ViewFeed.messageCapacity + 3) { feed.post("m\(index)") }
        let messages = feed.take().messages
        #expect(messages.count == ViewFeed.messageCapacity && messages.first == "m3" && feed.counts.messagesDropped == 3)
    }

    /// The writer wakes after each change; a change while it sends leaves one wake-up waiting.
    @Test func theWriterIsWokenForEveryChange() async {
        let feed = ViewFeed()
        var wakes = feed.wakes.makeAsyncIterator()
        feed.post("a")
        feed.post("b")
        #expect(await wakes.next() != nil)
        #expect(feed.take().messages == ["a", "b"])
        feed.offer(view: "v")
        #expect(await wakes.next() != nil)
        #expect(feed.take().messages == ["v"])
    }

    @Test func viewersGetWhatIsPostedToAll() {
        let viewers = Viewers()
        let (one, two) = (ViewFeed(), ViewFeed())
        viewers.add(one)
        viewers.add(two)
        viewers.post("health")
        viewers.remove(two)
        viewers.post("more")
        #expect(one.take().messages == ["health", "more"] && two.take().messages == ["health"] && viewers.count == 1)
    }
}
