import Testing

@testable import Bridge

/// The command path's bookkeeping without a socket: replies matched in order (acks and the link's
/// own lines among them), the window, the bounded queue, and what a lost connection answers.
@Suite struct CommandWindowTests {
    @Test func theWindowBoundsWhatIsAtTheDaemonAndTheQueueWhatWaits() {
        var window = CommandWindow(window: 2, capacity: 2)
        #expect(window.submit("status") == .send)
        #expect(window.submit("torch on") == .send)
        #expect(window.submit("beep") == .queued)
        #expect(window.submit("pause") == .queued)
        #expect(window.submit("resume") == .busy)
        let first = window.reply(command: "status")
        #expect(first.asker == .broker("status") && first.next == ["beep"], "a reply makes room for one queued command")
        #expect(window.submit("trigger") == .queued)
        #expect(window.waiting == [.broker("torch on"), .broker("beep")] && window.queued == ["pause", "trigger"])
    }

    @Test func acksAndTheLinksOwnLinesTakeTheirRepliesInOrder() {
        var window = CommandWindow(window: 8, capacity: 8)
        window.sent(.link("status"))
        window.sent(.ack(1))
        #expect(window.submit("status") == .send)
        window.sent(.ack(2))
        #expect(window.submit("metrics") == .send)
        #expect(window.reply(command: "status").asker == .link("status"))
        // Today's daemon answers `ack` as an unknown command, a reply that names no command.
        #expect(window.reply(command: nil).asker == .ack(1))
        #expect(window.reply(command: "status").asker == .broker("status"))
        // The daemon being rewritten names it.
        #expect(window.reply(command: "ack").asker == .ack(2))
        #expect(window.reply(command: "metrics").asker == .broker("metrics"))
        #expect(window.waiting.isEmpty)
    }

    @Test func aNamedReplyForALaterLineSkipsTheUnansweredAndAStrayReplyIsIgnored() {
        var window = CommandWindow(window: 8, capacity: 8)
        window.sent(.ack(7))
        #expect(window.submit("STATUS") == .send)
        #expect(window.reply(command: "subscribe").asker == nil, "a reply to no line of ours")
        let taken = window.reply(command: "status")
        #expect(taken.asker == .broker("STATUS") && taken.skipped == [.ack(7)])
        #expect(window.submit("beep") == .send)
    }

    @Test func aLostConnectionAnswersEveryCommandTaken() {
        var window = CommandWindow(window: 1, capacity: 4)
        window.sent(.ack(1))
        #expect(window.submit("status") == .send)
        #expect(window.submit("beep") == .queued)
        let lost = window.lost()
        #expect(lost.unanswered == ["status"] && lost.unsent == ["beep"])
        #expect(window.waiting.isEmpty && window.submit("pause") == .send, "a new connection starts with an empty window")
    }
}
