import Codes
import Feedback
import FoundationEssentials
import Logging
import NIOCore
import Outputs
import ScannerProtocol

/// The one owner of every read from the moment capture hands it over to its outcome (docs/socket-protocol.md,
/// delivery rules): the hold queue, the fan-out to the socket's consumers, what each
/// consumer has read or acked, the outputs' answers, the outcome counters, and the feedback the
/// cashier hears. It is bound to one event loop: made there, touched there only (from other threads
/// through `NIOLoopBound`, which checks), and every path that changes a read asserts it.
final class Delivery {
    let config: SocketConfig
    let eventLoop: any EventLoop
    let counters: Counters
    let feedback: any Feedback
    let beepAfter: GPIOConfig.BeepAfter
    let outputs: [any Output]
    let target: any CommandTarget
    let tap: FrameTap
    let access: SocketAccess
    let logger: Logger
    let encoder = JSONEncoder.forEvents()
    /// What the peer of a connection has read (`SocketQueue`), or nil when the kernel does not say.
    /// Tests replace it to play a peer that reads, or does not.
    let peerReading: (any Channel) -> PeerReading?

    /// Every read whose outcome is not final yet, or whose outputs have not all answered, by seq.
    var pending: [UInt64: Pending] = [:]
    /// The held reads' seqs, oldest first.
    var held: [UInt64] = []
    /// Reads delivered lately, for an `ack` or `nak` that comes after another consumer took them.
    var recent = RecentReads()

    var clients: [Int: Client] = [:]
    var nextClientID = 0
    /// Bytes queued for all clients together.
    var queuedTotal = 0
    /// The next check of the consumers' unread counts and of the answer deadlines, while one is due.
    var tick: (task: Scheduled<Void>, deadline: NIODeadline)?

    init(
        config: SocketConfig, eventLoop: any EventLoop, counters: Counters, feedback: any Feedback, beepAfter: GPIOConfig.BeepAfter,
        outputs: [any Output], target: any CommandTarget, tap: FrameTap, logger: Logger,
        peerReading: @escaping (any Channel) -> PeerReading? = SocketQueue.reading
    ) {
        eventLoop.preconditionInEventLoop()
        self.config = config
        self.eventLoop = eventLoop
        self.counters = counters
        self.feedback = feedback
        self.beepAfter = beepAfter
        self.outputs = outputs
        self.target = target
        self.tap = tap
        self.logger = logger
        self.peerReading = peerReading
        access = SocketAccess(controlGroup: config.controlGroup, consumerGroup: config.consumerGroup, logger: logger)
    }

    /// One read on its way: where its line is, and what the socket and each output made of it.
    struct Pending {
        enum State: Equatable {
            /// Written to consumers; none has read (or acked) it yet.
            case inFlight
            /// No consumer takes it now: it waits in the hold queue.
            case held
            case delivered
            /// A formatting rule sends it as nothing (counted as dropped, reason `rule`).
            case filtered
            case dropped(String)
            /// A consumer refused it (`nak`).
            case rejected
        }

        let read: Read
        /// The socket's line for it; nil when a formatting rule sends it as nothing.
        let line: String?
        /// When it was handed over: the hold queue's age.
        let since: NIODeadline
        var state: State
        /// Consumers whose stream has its line: one of them reading (or acking) it delivers it.
        var holders: Set<Int> = []
        /// When it goes back to the hold queue if no holder has read (or acked) it.
        var deadline: NIODeadline?
        var outputsWaiting: Int
        var outputAccepted = false
        /// The good-read pattern sounded.
        var soundedGood = false
        /// The first answer is in (the socket's and every output's): held or dropped was sounded if due.
        var settled = false

        /// Whether the socket has taken it for good: it reached a consumer, or a rule handled it.
        var socketAccepted: Bool { state == .delivered || state == .filtered }
        var isFinal: Bool {
            switch state {
            case .inFlight, .held: false
            case .delivered, .filtered, .dropped, .rejected: true
            }
        }
    }

    // MARK: A read's way

    /// Takes a read from capture, with its socket line made off the loop (nil: a rule sends it as
    /// nothing): to every output, and to the consumers or the hold queue.
    func accept(_ read: Read, line: String?) {
        eventLoop.preconditionInEventLoop()
        if beepAfter == .decoded { feedback.goodRead() }
        let seq = read.seq
        pending[seq] = Pending(read: read, line: line, since: eventLoop.now, state: .inFlight, outputsWaiting: outputs.count)
        if beepAfter == .decoded { pending[seq]?.soundedGood = true }
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        for output in outputs {
            output.send(read) { accepted in
                bound.eventLoop.execute { bound.value.outputAnswered(seq, accepted: accepted) }
            }
        }
        if line == nil {
            counters.update { $0.dropped["rule", default: 0] += 1 }
            logger.info("read sent as nothing by a formatting rule", metadata: ["seq": "\(seq)", "symbology": "\(read.symbology)"])
            settle(seq, .filtered)
            tellWatchers(read, .dropped, reason: "rule")
        } else {
            route(seq)
        }
    }

    /// An output sent the read (`accepted`) or gave it up.
    func outputAnswered(_ seq: UInt64, accepted: Bool) {
        eventLoop.preconditionInEventLoop()
        guard pending[seq] != nil else { return }
        pending[seq]!.outputsWaiting -= 1
        if accepted { pending[seq]!.outputAccepted = true }
        sound(seq)
    }

    /// Writes a read to every consumer that takes reads now and lacks it, or holds it when none
    /// has it. A read already with consumers waits for them (or for its deadline).
    func route(_ seq: UInt64) {
        guard let entry = pending[seq], !entry.isFinal, let line = entry.line else { return }
        let targets = clients.filter { $0.value.takesReads && !entry.holders.contains($0.key) }.keys.sorted()
        let writable = targets.filter(isWritable)
        guard !writable.isEmpty else {
            guard entry.holders.isEmpty else { return }
            return targets.isEmpty ? hold(seq, reason: "no-client") : drop(seq, reason: "clients-stalled")
        }
        if entry.state == .held { held.removeAll { $0 == seq } }
        pending[seq]!.state = .inFlight
        pending[seq]!.holders.formUnion(writable)
        // Every new holder gets the whole time to answer, also one that joined while the read was on its way.
        pending[seq]!.deadline = eventLoop.now + answerTimeout
        for id in writable {
            send(line, to: id) { [self] written in
                if written {
                    clients[id]?.awaiting.append(Awaiting(seq: seq, since: eventLoop.now))
                    scheduleTick()
                } else {
                    lost(seq, at: id)
                }
            }
        }
    }

    /// How long consumers have to read (or ack) a read written to them.
    var answerTimeout: TimeAmount {
        .nanoseconds(Int64((config.acknowledge == .required ? config.ackTimeoutSeconds : config.readTimeoutSeconds) * 1e9))
    }

    /// `id` will never read `seq`: its write failed, or it went away. With no holder left, the read
    /// is routed again (held when nobody takes it).
    func lost(_ seq: UInt64, at id: Int) {
        guard var entry = pending[seq], entry.holders.remove(id) != nil else { return }
        pending[seq] = entry
        guard entry.state == .inFlight, entry.holders.isEmpty else { return }
        logger.notice("read \(seq) not read by any client: held again")
        pending[seq]!.deadline = nil
        hold(seq, reason: "client-lost")
        flushHeld()
    }

    /// A consumer read (or acked) `seq`: it is delivered, unless it already has an outcome.
    func confirm(_ seq: UInt64) {
        guard let entry = pending[seq], !entry.isFinal else { return }
        if entry.state == .held { held.removeAll { $0 == seq } }
        counters.update {
            $0.reads += 1
            $0.readsBySymbology[entry.read.symbology, default: 0] += 1
        }
        recent.add(seq, holders: entry.holders, read: entry.read)
        settle(seq, .delivered)
        tellWatchers(entry.read, .delivered)
    }

    /// No holder read (or acked) `seq` in time: it is held again, and goes to any consumer that
    /// takes reads and lacks it.
    func timedOut(_ seq: UInt64) {
        guard pending[seq]?.state == .inFlight else { return }
        logger.notice("read \(seq) not \(config.acknowledge == .required ? "acked" : "read") within \(answerTimeout.seconds) s: held again")
        pending[seq]!.deadline = nil
        hold(seq, reason: "timeout")
        flushHeld()
    }

    /// A consumer refused `seq`: its own outcome, with the pattern it asked for.
    func reject(_ seq: UInt64, reason: String?) {
        let refused = pending[seq].map { (symbology: $0.read.symbology, text: $0.read.text) } ?? recent.read(seq)
        if let entry = pending[seq], entry.state == .delivered || !entry.isFinal {
            if entry.state == .held { held.removeAll { $0 == seq } }
            if entry.state == .delivered { uncount(entry.read.symbology) }
            pending[seq]!.soundedGood = true  // no good-read after a nak
            settle(seq, .rejected)
        } else if let symbology = recent.read(seq)?.symbology {
            uncount(symbology)
        }
        recent.remove(seq)
        counters.update { $0.rejected += 1 }
        logger.notice("read \(seq) rejected by the POS\(reason.map { ": \($0)" } ?? "")")
        feedback.rejected(reason)
        if let refused {
            tellWatchers(OutcomeEvent(seq: seq, symbology: refused.symbology, text: refused.text, outcome: .rejected, reason: reason))
        }
    }

    private func uncount(_ symbology: String) {
        counters.update {
            $0.reads -= 1
            $0.readsBySymbology[symbology, default: 1] -= 1
        }
    }

    // MARK: The hold queue

    /// Puts a read in the hold queue, in read order, within `hold_count`; `reason` tells watchers
    /// why: `no-client` (none consumes scans), `timeout` (none read or acked it in time) or
    /// `client-lost` (the consumers it was written to went away).
    func hold(_ seq: UInt64, reason: String) {
        guard config.holdCount > 0 else { return drop(seq, reason: "no-client") }
        guard pending[seq]?.state != .held else { return }
        pending[seq]!.state = .held
        held.insert(seq, at: held.firstIndex { $0 > seq } ?? held.endIndex)
        logger.debug("holding read \(seq): no client consumes scans", metadata: ["held": "\(held.count)"])
        sound(seq)
        if let read = pending[seq]?.read { tellWatchers(read, .held, reason: reason) }
        // A read still unread in a consumer's stream is not the one given up (`isUnreadInAStream`).
        let droppable = held.filter { !isUnreadInAStream($0) }
        if droppable.count > config.holdCount { drop(droppable[0], reason: "hold-full") }
        // A read held again after newer ones filled the queue is the oldest: it was the one dropped.
        guard let entry = pending[seq], entry.state == .held else { return }
        // A read held past hold_seconds is dropped then, not only when the next client comes.
        let age = eventLoop.now - entry.since
        let left = max(.nanoseconds(0), .nanoseconds(Int64(config.holdSeconds * 1e9)) - age)
        eventLoop.assumeIsolated().scheduleTask(in: left + .milliseconds(1)) { [self] in expireHeld() }
    }

    /// Drops the held reads older than `hold_seconds`, but for those still unread in a consumer's
    /// stream: they are dropped once that consumer has gone without reading them.
    func expireHeld() {
        for seq in held where isPastHold(seq) && !isUnreadInAStream(seq) {
            held.removeAll { $0 == seq }
            drop(seq, reason: "hold-expired")
        }
    }

    /// Whether `seq` was handed over more than `hold_seconds` ago (or is gone).
    func isPastHold(_ seq: UInt64) -> Bool {
        pending[seq].map { eventLoop.now - $0.since > .nanoseconds(Int64(config.holdSeconds * 1e9)) } ?? true
    }

    /// Whether `seq`'s line waits unread in a connected consumer's stream, without acks. A line
    /// written cannot be taken back: that consumer reading it, however late, puts it on the bill,
    /// so it must not be counted as dropped (and the cashier told to scan again) while it can.
    /// With acks, a late ack of a dropped read gets an error: the POS is told.
    func isUnreadInAStream(_ seq: UInt64) -> Bool {
        config.acknowledge == .none && clients.values.contains { $0.awaiting.contains { $0.seq == seq } }
    }

    /// Sends every read no consumer has read yet to the consumers that take reads and lack it,
    /// oldest first, so that each consumer gets them in order (expired ones are dropped first).
    /// One kept past `hold_seconds` for the stream it is unread in goes to nobody else: a code
    /// scanned that long ago should not ring up at another till.
    func flushHeld() {
        expireHeld()
        guard clients.values.contains(where: \.takesReads) else { return }
        for seq in pending.keys.sorted() where (pending[seq].map { !$0.isFinal } ?? false) && !isPastHold(seq) { route(seq) }
    }

    /// Counts and logs a read that will never be delivered; `quietly`: without the dropped pattern.
    func drop(_ seq: UInt64, reason: String, quietly: Bool = false) {
        guard let entry = pending[seq], !entry.isFinal else { return }
        if entry.state == .held { held.removeAll { $0 == seq } }
        counters.update { $0.dropped[reason, default: 0] += 1 }
        logger.warning("read dropped: \(reason)", metadata: ["seq": "\(seq)", "symbology": "\(entry.read.symbology)"])
        if quietly {
            // Nothing more to sound for it (`sound`).
            pending[seq]!.settled = true
        } else if entry.settled && !entry.outputAccepted {
            // A held read the POS will now never get: the cashier hears it, unless an output took it.
            feedback.dropped()
            logger.warning("held read \(seq) dropped: \(reason)", metadata: ["symbology": "\(entry.read.symbology)"])
        }
        settle(seq, .dropped(reason))
        tellWatchers(entry.read, .dropped, reason: reason)
    }

    /// Shutdown: the reads consumers have read are delivered, every other read still on its way is
    /// dropped, and every connection closes. A read left unread in a consumer's stream is dropped
    /// as `shutdown-unread`, without the dropped pattern: the kernel keeps its line for the reader,
    /// which may still read it once the daemon is gone, and the cashier must not scan it again.
    func shutDown() {
        eventLoop.preconditionInEventLoop()
        // A consumer that read its lines since the last check (every 5 ms) has them. Not
        // `caughtUp`: a consumer taking reads again would be written held reads as it closes.
        for (id, client) in clients.sorted(by: { $0.key < $1.key })
        where config.acknowledge == .none && !client.awaiting.isEmpty && peerReading(client.channel) == .readAll {
            confirmRead(by: id)
        }
        let open = pending.filter { !$0.value.isFinal }.keys.sorted()
        let unread = open.filter(isUnreadInAStream)
        for seq in open {
            let inStream = unread.contains(seq)
            drop(seq, reason: inStream ? "shutdown-unread" : "shutdown", quietly: inStream)
        }
        if open.count > unread.count { logger.warning("dropped \(open.count - unread.count) reads at shutdown: no client consumed them") }
        if !unread.isEmpty {
            let seqs = unread.map(String.init).joined(separator: ", ")
            logger.warning("\(unread.count) reads left unread in a client's stream at shutdown: it may still read them (seq \(seqs))")
        }
        for client in clients.values { client.channel.close(promise: nil) }
    }

    // MARK: Outcomes and feedback

    /// Gives `seq` its final outcome at the socket.
    private func settle(_ seq: UInt64, _ state: Pending.State) {
        pending[seq]!.state = state
        pending[seq]!.deadline = nil
        sound(seq)
    }

    /// The feedback decision, in one place, after anything happened to `seq`: the good-read pattern
    /// as `feedback.beep_after` says; once the socket and every output answered, the held or the
    /// dropped pattern if nothing took it. Forgets the read once nothing more can happen to it.
    private func sound(_ seq: UInt64) {
        guard var entry = pending[seq] else { return }
        let good =
            switch beepAfter {
            case .decoded: false
            case .accepted: entry.socketAccepted || entry.outputAccepted
            // The ack is what the cashier waits for, however late it comes.
            case .acknowledged: entry.state == .delivered
            }
        if good && !entry.soundedGood && (!entry.settled || beepAfter == .acknowledged) {
            entry.soundedGood = true
            feedback.goodRead()
        }
        let answered = entry.state != .inFlight && entry.outputsWaiting == 0
        if answered && !entry.settled {
            entry.settled = true
            if !entry.socketAccepted && !entry.outputAccepted {
                switch entry.state {
                case .held:
                    feedback.held()
                case .rejected:
                    break
                default:
                    feedback.dropped()
                    logger.warning("read \(seq) reached no output", metadata: ["symbology": "\(entry.read.symbology)"])
                }
            }
        }
        if entry.isFinal && entry.outputsWaiting == 0 {
            pending[seq] = nil
        } else {
            pending[seq] = entry
        }
    }

    /// Reads written to consumers that none has read (or acked) yet, for `status`.
    var awaitingCount: Int { pending.values.count { $0.state == .inFlight && !$0.holders.isEmpty } }
}

/// The last reads delivered, with the consumers that had them: an `ack` or `nak` may still come.
struct RecentReads {
    private var entries: [(seq: UInt64, holders: Set<Int>, symbology: String, text: String?)] = []
    static let capacity = 256

    mutating func add(_ seq: UInt64, holders: Set<Int>, read: Read) {
        entries.append((seq, holders, read.symbology, read.text))
        if entries.count > Self.capacity { entries.removeFirst() }
    }

    func had(_ seq: UInt64, client id: Int) -> Bool { entries.contains { $0.seq == seq && $0.holders.contains(id) } }
    /// The symbology and text of read `seq`, if it is among them.
    func read(_ seq: UInt64) -> (symbology: String, text: String?)? {
        entries.first { $0.seq == seq }.map { ($0.symbology, $0.text) }
    }
    mutating func remove(_ seq: UInt64) { entries.removeAll { $0.seq == seq } }
}

extension TimeAmount {
    /// Whole and fractional seconds, for log lines.
    var seconds: Double { Double(nanoseconds) / 1e9 }
}
