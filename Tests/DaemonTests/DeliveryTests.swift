import Codes
import Glibc
import Logging
import NIOCore
import ScannerProtocol
import Testing

@testable import Daemon

/// The delivery rules (docs/socket-protocol.md), in-process: framing, hold and expiry, fan-out,
/// clients that never read, acks, naks and timeouts, the feedback decision and the counter identity.
@Suite struct DeliveryTests {
    static func config(_ change: (inout SocketConfig) -> Void = { _ in }) -> SocketConfig {
        var config = SocketConfig()
        change(&config)
        return config
    }

    @Test func commandLinesAreFramedWhateverTheChunksAndAnOverlongOneGetsAnError() throws {
        let fixture = DeliveryFixture()
        let peer = try fixture.connect(subscribe: false)
        _ = try peer.lines()
        try peer.channel.writeInbound(peer.channel.allocator.buffer(string: "sta"))
        try peer.channel.writeInbound(peer.channel.allocator.buffer(string: "tus\nbogus\n" + String(repeating: "x", count: 300)))
        try peer.channel.writeInbound(peer.channel.allocator.buffer(string: "\n"))
        let replies = try peer.lines().filter { $0["type"] as? String == "reply" }
        #expect(replies.map { $0["ok"] as? Bool } == [true, false, false])
        #expect((replies[2]["error"] as? String)?.contains("longer than") == true)
        #expect(try peer.command("ack")?["error"] as? String == "no read awaits an answer from this connection")
    }

    @Test func aReadWithNoConsumerIsHeldThenGoesToTheNextAndIsDeliveredWhenRead() throws {
        let fixture = DeliveryFixture()
        fixture.scan("held")
        #expect(fixture.delivery.held.count == 1)
        #expect(fixture.feedback.patterns == ["held"])
        let pos = try fixture.connect()
        #expect(try pos.scans() == [1])
        #expect(fixture.snapshot.reads == 0, "written is not read")
        #expect(fixture.delivery.awaitingCount == 1)
        pos.reads()
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 1)
        #expect(fixture.delivery.awaitingCount == 0 && fixture.delivery.held.isEmpty)
        #expect(fixture.feedback.patterns == ["held"], "no good-read long after the code was shown")
    }

    @Test func heldReadsExpireOrOverflowAndAreCountedWithTheDroppedPattern() {
        let fixture = DeliveryFixture(Self.config { $0.holdCount = 2 })
        for text in ["a", "b", "c"] { fixture.scan(text) }
        #expect(fixture.snapshot.dropped == ["hold-full": 1])
        fixture.advance(seconds: fixture.config.holdSeconds + 0.1)
        #expect(fixture.snapshot.dropped == ["hold-full": 1, "hold-expired": 2])
        #expect(fixture.feedback.patterns == ["held", "held", "held", "dropped", "dropped", "dropped"])
        #expect(fixture.balances(scans: 3))
    }

    @Test func theGoodReadWaitsUntilAConsumerHasReadTheLine() throws {
        let fixture = DeliveryFixture()
        let pos = try fixture.connect()
        fixture.scan("beep")
        fixture.advance(seconds: 0.05)
        #expect(fixture.feedback.patterns.isEmpty, "the line is queued, not read")
        pos.reads()
        fixture.advance(seconds: 0.01)
        #expect(fixture.feedback.patterns == ["good"])
        #expect(fixture.snapshot.reads == 1)
    }

    @Test func everyConsumerGetsEveryReadAndTheFirstToReadItDeliversItOnce() throws {
        let fixture = DeliveryFixture()
        let first = try fixture.connect()
        let second = try fixture.connect()
        for text in ["one", "two"] { fixture.scan(text) }
        #expect(try first.scans() == [1, 2])
        #expect(try second.scans() == [1, 2])
        second.reads()
        first.reads()
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 2)
        #expect(fixture.feedback.count("good") == 2)
    }

    @Test func aClientThatSubscribesAndNeverReadsSwallowsNothing() throws {
        let fixture = DeliveryFixture()
        let hostile = try fixture.connect()
        for text in ["1", "2", "3"] { fixture.scan(text) }
        fixture.advance(seconds: fixture.config.readTimeoutSeconds + 0.01)
        #expect(fixture.delivery.held.count == 3, "unread past read_timeout: held again")
        #expect(fixture.feedback.patterns == ["held", "held", "held"], "never a good-read for a read nobody took")
        for text in ["4", "5"] { fixture.scan(text) }
        #expect(try hostile.scans() == [1, 2, 3], "no more reads for a client that lets them time out")
        let pos = try fixture.connect()
        #expect(try pos.scans() == [1, 2, 3, 4, 5])
        pos.reads()
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 5)
        #expect(fixture.delivery.held.isEmpty)
        #expect(fixture.balances(scans: 5))
    }

    @Test func aHungConsumerThatRecoversGetsItsReadsBackOnceEach() throws {
        let fixture = DeliveryFixture()
        let pos = try fixture.connect()
        for text in ["1", "2"] { fixture.scan(text) }
        fixture.advance(seconds: fixture.config.readTimeoutSeconds + 0.01)
        fixture.scan("3")
        #expect(try pos.scans() == [1, 2], "3 is held: the POS lets reads time out")
        pos.reads()
        // A consumer that stopped reading is looked at every 100 ms.
        fixture.advance(seconds: 0.11)
        #expect(try pos.scans() == [3], "1 and 2 were in its buffer all along: not sent again")
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 3)
    }

    @Test func aReadInAHungConsumersStreamIsNotDroppedWhileTheConsumerCanStillReadIt() throws {
        let fixture = DeliveryFixture(Self.config { $0.holdCount = 1 })
        let pos = try fixture.connect()
        for text in ["1", "2"] { fixture.scan(text) }
        #expect(try pos.scans() == [1, 2])
        fixture.advance(seconds: fixture.config.readTimeoutSeconds + fixture.config.holdSeconds + 0.1)
        // Neither hold_seconds nor hold_count gives them up: the line is written, and the POS
        // reading it late puts it on the bill.
        #expect(fixture.snapshot.dropped.isEmpty)
        #expect(fixture.delivery.held == [1, 2])
        #expect(fixture.feedback.patterns == ["held", "held"])
        // Kept for that stream only: a consumer that comes now does not get codes that old.
        let other = try fixture.connect()
        #expect(try other.scans() == [])
        pos.reads()
        fixture.advance(seconds: 0.11)
        #expect(fixture.snapshot.reads == 2)
        #expect(fixture.balances(scans: 2))
    }

    @Test func aHungConsumerThatGoesAwayWithAnExpiredReadUnreadHasItDropped() throws {
        let fixture = DeliveryFixture()
        let pos = try fixture.connect()
        fixture.scan("never read")
        fixture.advance(seconds: fixture.config.readTimeoutSeconds + fixture.config.holdSeconds + 0.1)
        #expect(fixture.snapshot.dropped.isEmpty)
        pos.reads(.discarded)
        fixture.advance(seconds: 0.11)
        #expect(fixture.delivery.clients.isEmpty)
        #expect(fixture.snapshot.dropped == ["hold-expired": 1])
        #expect(fixture.feedback.patterns == ["held", "dropped"])
        #expect(fixture.balances(scans: 1))
    }

    @Test func atShutdownWhatAConsumerReadIsDeliveredAndALineLeftInItsStreamIsNotSoundedAsDropped() throws {
        let fixture = DeliveryFixture()
        let pos = try fixture.connect()
        let hung = try fixture.connect()
        fixture.scan("read just now")
        #expect(try hung.command("unsubscribe")?["ok"] as? Bool == true)
        fixture.scan("read by nobody")
        #expect(try pos.scans() == [1, 2])
        #expect(try hung.scans() == [1])
        // The POS read both lines since the last check; the hung consumer read nothing.
        pos.reads()
        fixture.delivery.shutDown()
        #expect(fixture.snapshot.reads == 2)
        #expect(fixture.snapshot.dropped.isEmpty)
        #expect(fixture.feedback.patterns == ["good", "good"])

        // Read 1 sits unread in a stream (the consumer may still read it once the daemon is gone),
        // read 2 is held with nobody to take it.
        let later = DeliveryFixture()
        let stream = try later.connect()
        later.scan("in a stream")
        #expect(try stream.command("unsubscribe")?["ok"] as? Bool == true)
        later.scan("held")
        #expect(later.delivery.held == [2])
        later.delivery.shutDown()
        #expect(later.snapshot.dropped == ["shutdown-unread": 1, "shutdown": 1])
        #expect(later.feedback.patterns == ["held", "dropped"], "no dropped pattern for the line in a stream")
        #expect(later.delivery.clients.isEmpty)
        #expect(later.balances(scans: 2))
    }

    @Test func aPeerThatClosesWithLinesUnreadHasNotReadThem() throws {
        let fixture = DeliveryFixture()
        let gone = try fixture.connect()
        fixture.scan("lost?")
        gone.reads(.discarded)
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 0)
        #expect(fixture.delivery.held.count == 1)
        #expect(fixture.delivery.clients.isEmpty)
    }

    @Test func withAcksANeverReadingConsumerBesideAnAckingPOSTakesNothing() throws {
        let fixture = DeliveryFixture(Self.config { $0.acknowledge = .required }, beepAfter: .acknowledged)
        let hostile = try fixture.connect()
        let pos = try fixture.connect()
        var received: [Int] = []
        for index in 1...6 {
            fixture.scan("code \(index)")
            pos.reads()  // reading is not enough: the ack delivers
            fixture.advance(seconds: 0.01)
            #expect(fixture.snapshot.reads == index - 1)
            let seqs = try pos.scans()
            received += seqs
            #expect(try pos.command("ack \(seqs.last ?? 0)")?["ok"] as? Bool == true)
            #expect(fixture.feedback.count("good") == index, "the good-read sounds on the ack")
        }
        #expect(received == Array(1...6), "every read, in order, once")
        fixture.advance(seconds: fixture.config.ackTimeoutSeconds + 0.01)
        fixture.scan("after")
        #expect(try hostile.scans() == Array(1...6), "a consumer that let acks time out gets no more reads")
        #expect(try pos.scans() == [7])
    }

    @Test func aPOSThatStopsAckingHasItsReadsHeldThenDroppedAndCounted() throws {
        let fixture = DeliveryFixture(Self.config { $0.acknowledge = .required }, beepAfter: .acknowledged)
        let pos = try fixture.connect()
        fixture.scan("unacked")
        fixture.advance(seconds: fixture.config.ackTimeoutSeconds + 0.01)
        #expect(fixture.delivery.held.count == 1)
        #expect(fixture.feedback.patterns == ["held"])
        fixture.advance(seconds: fixture.config.holdSeconds)
        #expect(fixture.snapshot.dropped == ["hold-expired": 1])
        #expect(fixture.feedback.patterns == ["held", "dropped"])
        #expect(try pos.command("ack 1")?["ok"] as? Bool == false, "too late: the read has its outcome")
        #expect(fixture.balances(scans: 1))
    }

    @Test func aNakSoundsThePatternThePOSNamesAndIsItsOwnOutcome() throws {
        let fixture = DeliveryFixture(Self.config { $0.acknowledge = .required }, beepAfter: .acknowledged)
        let pos = try fixture.connect()
        fixture.scan("unknown item")
        fixture.scan("age check")
        #expect(try pos.command("nak 1 not-found")?["ok"] as? Bool == true)
        #expect(try pos.command("nak")?["ok"] as? Bool == true, "the oldest read awaiting an answer: 2")
        #expect(fixture.feedback.patterns == ["rejected:not-found", "rejected:-"])
        #expect(fixture.snapshot.rejected == 2 && fixture.snapshot.reads == 0)
        #expect(fixture.balances(scans: 2))
        #expect(try pos.command("nak 1")?["ok"] as? Bool == false, "one outcome per read")
    }

    @Test func withoutAcksANakStillTurnsADeliveredReadIntoARejectedOne() throws {
        let fixture = DeliveryFixture()
        let pos = try fixture.connect()
        fixture.scan("read")
        pos.reads()
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 1)
        #expect(try pos.command("nak 1 not-found")?["ok"] as? Bool == true)
        #expect(fixture.snapshot.reads == 0 && fixture.snapshot.rejected == 1)
        #expect(fixture.balances(scans: 1))
    }

    @Test func anOutputThatTakesTheReadGivesTheGoodReadEvenWhileTheSocketHoldsIt() {
        let taking = DeliveryFixture(outputs: [AnsweringOutput(accepts: true)])
        taking.scan("to serial")
        #expect(taking.feedback.patterns == ["good"])
        let failing = DeliveryFixture(Self.config { $0.holdCount = 0 }, outputs: [AnsweringOutput(accepts: false)])
        failing.scan("nowhere")
        #expect(failing.feedback.patterns == ["dropped"])
        #expect(failing.snapshot.dropped == ["no-client": 1])
    }

    @Test func onlyTheConsumerGroupMayTakeReads() throws {
        let logger = Logger(label: "access-test")
        let group = try #require(getgrnam("nogroup")).pointee.gr_gid
        let access = SocketAccess(controlGroup: nil, consumerGroup: "nogroup", logger: logger)
        #expect(access.mayConsume(SocketPeer(uid: 0, gid: 0, pid: 1)))
        #expect(access.mayConsume(SocketPeer(uid: 4242, gid: group, pid: 1)))
        #expect(!access.mayConsume(SocketPeer(uid: 4242, gid: 4242, pid: 1)))
        #expect(access.mayConsume(SocketPeer(uid: 4242, gid: 4242, pid: 1, groups: [100, group])), "a supplementary group")
        #expect(SocketAccess(controlGroup: nil, consumerGroup: nil, logger: logger).mayConsume(SocketPeer(uid: 4242, gid: 4242, pid: 1)))

        // A connection whose peer is not in the group: status yes, reads no.
        let fixture = DeliveryFixture(Self.config { $0.consumerGroup = "nogroup" })
        let stranger = try fixture.connect(subscribe: false)
        let refusal = try #require(try stranger.command("subscribe"))
        #expect(refusal["ok"] as? Bool == false)
        #expect((refusal["error"] as? String)?.contains("group nogroup") == true)
        #expect(try stranger.command("status")?["ok"] as? Bool == true)
        fixture.scan("not for strangers")
        #expect(try stranger.scans().isEmpty)
        #expect(fixture.delivery.held.count == 1)
    }

    @Test func aReadHeldAgainWhenTheHoldQueueIsFullIsTheOldestAndIsDropped() throws {
        let fixture = DeliveryFixture(Self.config { $0.holdCount = 2 })
        let pos = try fixture.connect()
        fixture.scan("in flight")
        #expect(try pos.scans() == [1])
        #expect(try pos.command("unsubscribe")?["ok"] as? Bool == true)
        for text in ["2", "3", "4"] { fixture.scan(text) }
        #expect(fixture.delivery.held == [3, 4])
        // Read 1 comes back to a full queue: it is the oldest, and the one dropped.
        try pos.channel.close().wait()
        #expect(fixture.delivery.held == [3, 4])
        #expect(fixture.snapshot.dropped == ["hold-full": 2])
        #expect(fixture.balances(scans: 4))
    }

    @Test func withAcksAConsumerThatLetReadsExpireTakesReadsAgainWhenItAnswers() throws {
        let fixture = DeliveryFixture(Self.config { $0.acknowledge = .required }, beepAfter: .acknowledged)
        let pos = try fixture.connect()
        fixture.scan("missed")
        fixture.advance(seconds: fixture.config.ackTimeoutSeconds + fixture.config.holdSeconds + 0.1)
        #expect(fixture.snapshot.dropped == ["hold-expired": 1])
        fixture.scan("while hung")
        #expect(try pos.scans() == [1], "a consumer that let reads time out gets none")
        // The POS recovers: its late ack is refused, but it is answering again.
        #expect(try pos.command("ack 1")?["ok"] as? Bool == false)
        #expect(try pos.scans() == [2])
        #expect(try pos.command("ack 2")?["ok"] as? Bool == true)
        #expect(fixture.snapshot.reads == 1)
        // Subscribing again does the same; read 3 is in its buffer already, and is not sent again.
        fixture.scan("3")
        #expect(try pos.scans() == [3])
        fixture.advance(seconds: fixture.config.ackTimeoutSeconds + 0.1)
        fixture.scan("4")
        #expect(try pos.scans() == [])
        #expect(try pos.command("subscribe")?["ok"] as? Bool == true)
        #expect(try pos.scans() == [4])
    }

    @Test func withAcksAnAckDeliversOnlyTheReadItNames() throws {
        let fixture = DeliveryFixture(Self.config { $0.acknowledge = .required }, beepAfter: .acknowledged)
        let pos = try fixture.connect()
        for text in ["one", "two"] { fixture.scan(text) }
        #expect(try pos.scans() == [1, 2])
        #expect(try pos.command("ack 2")?["ok"] as? Bool == true)
        #expect(fixture.snapshot.reads == 1, "read 1 is not acked by acking read 2")
        #expect(fixture.feedback.count("good") == 1)
        #expect(try pos.command("ack")?["ok"] as? Bool == true, "without a seq: the oldest unanswered, 1")
        #expect(fixture.snapshot.reads == 2)
    }

    @Test func anAnswerWithoutSeqIsForTheOldestLineTheConsumerHasNotAnswered() throws {
        let fixture = DeliveryFixture(Self.config { $0.acknowledge = .required }, beepAfter: .acknowledged)
        let slow = try fixture.connect()
        let quick = try fixture.connect()
        for text in ["41", "42"] { fixture.scan(text) }
        #expect(try slow.scans() == [1, 2] && quick.scans() == [1, 2])
        #expect(try quick.command("ack 1")?["ok"] as? Bool == true)
        // The slow consumer's nak was meant for read 1, which has its outcome: it must not reject read 2.
        #expect(try slow.command("nak")?["ok"] as? Bool == true, "read 1 was delivered: the nak still answers it")
        #expect(fixture.snapshot.rejected == 1 && fixture.snapshot.reads == 0)
        #expect(try slow.command("nak")?["ok"] as? Bool == true)
        #expect(fixture.snapshot.rejected == 2)
        #expect(fixture.balances(scans: 2))
    }

    @Test func aConsumerThatReadsItsLineAndClosesAtOnceHasReadIt() throws {
        let fixture = DeliveryFixture()
        let pos = try fixture.connect()
        fixture.scan("one and done")
        pos.reads()
        // The peer's close arrives before the next check of its unread count.
        pos.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        fixture.loop.run()
        #expect(fixture.snapshot.reads == 1)
        #expect(fixture.delivery.held.isEmpty && fixture.delivery.clients.isEmpty)
        #expect(fixture.feedback.patterns == ["good"])
    }

    @Test func aConsumerThatJoinsWhileAReadIsInFlightGetsTheWholeTimeToReadIt() throws {
        let fixture = DeliveryFixture()
        let first = try fixture.connect()
        fixture.scan("shared")
        fixture.advance(seconds: fixture.config.readTimeoutSeconds * 0.9)
        let second = try fixture.connect()
        #expect(try second.scans() == [1])
        fixture.advance(seconds: fixture.config.readTimeoutSeconds * 0.2)
        #expect(fixture.delivery.held.isEmpty, "the newcomer still has time")
        #expect(fixture.feedback.patterns.isEmpty)
        second.reads()
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 1 && fixture.feedback.patterns == ["good"])
        _ = first
    }

    @Test func aStalledConsumerIsCutOffAndItsUnreadReadsGoToTheNext() throws {
        let fixture = DeliveryFixture()
        let stalled = try fixture.connect()
        fixture.scan("stuck behind a full queue")
        #expect(try stalled.scans() == [1])
        // Its queue passed client_buffer: the channel says it is no longer writable.
        stalled.channel.isWritable = false
        stalled.channel.pipeline.fireChannelWritabilityChanged()
        #expect(fixture.delivery.clients.isEmpty, "cut off")
        #expect(fixture.delivery.held == [1], "the read it never read is held again")
        let pos = try fixture.connect()
        #expect(try pos.scans() == [1])
        pos.reads()
        fixture.advance(seconds: 0.01)
        #expect(fixture.snapshot.reads == 1)
        #expect(fixture.balances(scans: 1))
    }

    @Test func theSocketsControlCharacterPolicyActsOnTheFormattedTextOnly() throws {
        let fixture = DeliveryFixture(Self.config { $0.controlCharacters = .caret })
        let pos = try fixture.connect()
        fixture.scan("AB\r\nCD\u{1B}[2J")
        let scan = try #require(try pos.lines().first { $0["type"] as? String == "scan" })
        #expect(scan["formatted"] as? String == "AB^M^JCD^[[2J")
        #expect(scan["text"] as? String == "AB\r\nCD\u{1B}[2J", "the read as decoded stays in text")
    }
}
