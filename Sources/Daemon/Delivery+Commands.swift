import Codes
import Documents
import FoundationEssentials
import Imaging
import NIOCore
import Outputs
import Platform
import ScannerProtocol
import Synchronization

/// Commands (docs/socket-protocol.md): one reply line per command line, and who may send which.
extension Delivery {
    /// Answers one command line from `id`; nil stands for a line over the length limit.
    func handle(_ line: Substring?, from id: Int) {
        eventLoop.preconditionInEventLoop()
        // A consumer that speaks may well have read what was written to it: `status` then counts it.
        if config.acknowledge == .none, clients[id]?.awaiting.isEmpty == false, let channel = clients[id]?.channel,
            peerReading(channel) == .readAll
        {
            caughtUp(id)
        }
        // So may a watcher: its next view need not wait for the next check.
        checkView(id)
        guard let line else { return send(errorReply("line longer than \(Command.maxLineBytes) bytes"), to: id) }
        let command: Command
        switch Command.parse(String(line)) {
        case .failure(let error): return send(errorReply(error.message), to: id)
        case .success(let parsed): command = parsed
        }
        guard let client = clients[id] else { return }
        if command.needsControl && !client.mayControl || command.needsImages && !client.mayTakeImages {
            let restricted = command.needsControl && client.restricted
            logger.notice("client \(id) (\(client.peer?.description ?? "unknown peer")) refused: \(command.name)\(restricted ? " (restricted)" : "")")
            return send(errorReply(restricted ? Self.restrictedRefusal : access.refusal, command: command.name), to: id)
        }
        switch command {
        case .subscribe:
            guard client.mayConsume else {
                logger.notice("client \(id) (\(client.peer?.description ?? "unknown peer")) refused: subscribe")
                return send(errorReply(access.consumeRefusal, command: command.name), to: id)
            }
            send(config.format == .plain ? "ok" : Event.reply("subscribe", ok: true, encoder: encoder), to: id)
            clients[id]?.subscribed = true
            becomeConsumer(id)
        case .ack(let seq), .nak(let seq, _):
            switch answered(seq, by: id) {
            case .failure(let refusal):
                send(errorReply(refusal.message, command: command.name), to: id)
            case .success(let seq):
                if case .nak(_, let reason) = command {
                    clients[id]?.awaiting.removeAll { $0.seq == seq }
                    reject(seq, reason: reason)
                } else if config.acknowledge == .required {
                    acked(id, seq)
                } else {
                    caughtUp(id, through: seq)
                }
                send(config.format == .plain ? "ok" : Event.reply(command.name, ok: true, encoder: encoder), to: id)
            }
            // Even a late answer shows the consumer is back: reads go to it again (after the reply).
            resume(id)
        case .unsubscribe:
            clients[id]?.role = .control
            clients[id]?.subscribed = false
            send(config.format == .plain ? "ok" : Event.reply("unsubscribe", ok: true, encoder: encoder), to: id)
        case .status:
            send(statusReply(), to: id)
        case .metrics:
            let text = Metrics.prometheus(counters.snapshot, target.snapshot, outputs: target.outputHealth)
            // Plain: the exposition's lines, then the reply line; JSON: the text in one field.
            send(config.format == .plain ? text + "ok" : Event.reply("metrics", ok: true, metrics: text, encoder: encoder), to: id)
        case .watch(let fps, let width):
            watch(id, fps: fps, width: width)
        case .unwatch:
            unwatch(id)
        case .restrict:
            restrict(id)
        case .snapshot, .record:
            if let refusal = imageRefusal(for: command.name, from: id) { return send(errorReply(refusal, command: command.name), to: id) }
            if case .record(let seconds) = command {
                requestFrames(.record(until: MonotonicClock.nanoseconds() &+ Self.nanoseconds(seconds)), seconds: seconds, for: id)
            } else {
                requestFrames(.snapshot, seconds: 0, for: id)
            }
        default:
            switch target.execute(command) {
            case .success: send(config.format == .plain ? "ok" : Event.reply(command.name, ok: true, encoder: encoder), to: id)
            case .failure(let error): send(errorReply(error.message, command: command.name), to: id)
            }
        }
    }

    private func statusReply() -> String {
        let snapshot = target.snapshot
        if config.format == .plain {
            let counts = counters.snapshot
            return
                "ok camera=\(snapshot.camera.state.rawValue) torch=\(snapshot.torch ? "on" : "off") mode=\(snapshot.mode.rawValue) paused=\(snapshot.paused) reads=\(counts.reads) clients=\(clients.count) watchers=\(watcherCount)"
        }
        let status = StatusReply(
            state: StateEvent(snapshot), counters: counters.snapshot, clients: clients.count, held: held.count, awaiting: awaitingCount,
            watchers: watcherCount, outputs: target.outputHealth, bootID: Self.bootID)
        return Event.reply("status", ok: true, status: status, encoder: encoder)
    }

    /// The read an `ack` or `nak` from `id` answers, or why there is none: `seq`, when it was written
    /// to `id` and has no outcome yet or was delivered lately; without a seq, the oldest line `id`
    /// has not answered, whatever became of its read meanwhile (a plain-format POS answers its lines
    /// in order, and its answer must never fall on the next read).
    private func answered(_ seq: UInt64?, by id: Int) -> Result<UInt64, CommandError> {
        guard let client = clients[id] else { return .failure(CommandError("no such connection")) }
        guard let seq = seq ?? client.awaiting.first?.seq else { return .failure(CommandError("no read awaits an answer from this connection")) }
        // Reads that got their outcome meanwhile (dropped, rejected) are no longer the client's to answer.
        if pending[seq].map({ !$0.isFinal && $0.holders.contains(id) }) ?? false || recent.had(seq, client: id) { return .success(seq) }
        if clients[id]!.awaiting.contains(where: { $0.seq == seq }) {
            clients[id]!.awaiting.removeAll { $0.seq == seq }
            return .failure(CommandError("read \(seq) has an outcome already"))
        }
        return .failure(CommandError("read \(seq) was not written to this connection, or has an outcome already"))
    }

    /// This daemon's run, for `status` (`StatusReply.bootID`).
    static let bootID = UUID().uuidString.lowercased()

    /// Why camera images are refused to `id` now, if they are; logs the access (`what` was asked)
    /// when they are not.
    func imageRefusal(for what: String, from id: Int) -> String? {
        guard config.images else { return "camera images are turned off (socket.images: false)" }
        guard !target.snapshot.paused else { return "camera images are refused while scanning is paused" }
        let peer = clients[id]?.peer?.description ?? "unknown peer"
        logger.notice("client \(id) (\(peer)) takes camera images: \(what)")
        return nil
    }

    /// Whole nanoseconds in `seconds`, at least one (a recording of a microsecond still ends).
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        max(1, UInt64((seconds * 1e9).rounded(.up)))
    }

    /// How long a snapshot waits for a frame from a streaming camera.
    static var snapshotTimeout: TimeAmount { .seconds(3) }
    /// How long one frame line may take to reach a client.
    static var frameWriteTimeout: TimeAmount { .seconds(10) }

    /// Asks the capture loop for frames for `id` (a snapshot or a recording). A snapshot is answered with its frame (or an
    /// error after `snapshotTimeout`); a recording is answered at once, then sends `frame` events and
    /// ends with `record-end`. Frame lines are JSON in either socket format: only our tools ask for them.
    private func requestFrames(_ kind: FrameTap.Kind, seconds: Double, for id: Int) {
        let name = if case .snapshot = kind { "snapshot" } else { "record" }
        let camera = target.snapshot.camera
        guard camera.state == .streaming else {
            return send(errorReply("no frame: camera \(camera.state.rawValue)\(camera.detail.map { " (\($0))" } ?? "")", command: name), to: id)
        }
        // Asked without removing: a second request must not cancel the first, which is still owed its reply.
        guard clients[id]?.bulkWrites == 0, !tap.contains(id: id) else {
            return send(errorReply(Self.framesBusy, command: name), to: id)
        }
        let busy = Atomic<Bool>(false)
        // The capture thread hands frames over: they cross to the loop, where the client is.
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        let take: @Sendable (() -> TappedFrame) -> Bool = { make in
            // One frame in flight per client: a client that cannot keep up misses frames, it is not queued for.
            guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return false }
            let frame = make()
            bound.eventLoop.execute {
                let delivery = bound.value
                let line: String
                switch kind {
                case .snapshot:
                    line = Event.withLuma(Event.reply("snapshot", ok: true, frame: FrameEvent(frame), encoder: delivery.encoder), frame.luma)
                case .record, .watch: line = Event.frame(FrameEvent(frame), luma: frame.luma, encoder: delivery.encoder)
                }
                delivery.writeFrame(line, to: id) { busy.store(false, ordering: .releasing) }
            }
            return true
        }
        switch kind {
        case .snapshot:
            let token = tap.add(id: id, kind: kind, take: take, end: { _ in })
            eventLoop.assumeIsolated().scheduleTask(in: Self.snapshotTimeout) { [self] in
                guard tap.remove(id: id, token: token), clients[id] != nil else { return }
                send(errorReply("no frame within \(Self.snapshotTimeout.nanoseconds / 1_000_000_000) s", command: "snapshot"), to: id)
            }
        case .record(let until):
            let end: @Sendable (Int) -> Void = { skipped in
                bound.eventLoop.execute { bound.value.send(Event.recordEnd(skipped: skipped, encoder: bound.value.encoder), to: id) }
            }
            let token = tap.add(id: id, kind: kind, take: take, end: end)
            logger.info("client \(id) records frames until \(until / 1_000_000) ms (monotonic), for \(seconds) s")
            send(Event.reply("record", ok: true, encoder: encoder), to: id)
            // Ends the recording on time even when no frame comes (the capture loop ends it otherwise).
            eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(Self.nanoseconds(seconds))) + .seconds(1)) { [self] in
                // Only this recording: a snapshot asked for since must still get its own reply.
                if tap.remove(id: id, token: token) { end(0) }
            }
        case .watch:
            preconditionFailure("a watch makes its own views, not frame lines")
        }
    }

    /// What a second snapshot, recording or watch on one connection is told.
    static let framesBusy = "a snapshot, recording or watch is already running on this connection"

    /// Writes one frame line; a client that stops reading in the middle of a frame is cut off.
    func writeFrame(_ line: String, to id: Int, done: @escaping () -> Void) {
        guard clients[id] != nil else { return done() }
        let deadline = eventLoop.assumeIsolated().scheduleTask(in: Self.frameWriteTimeout) { [self] in
            cutOff(id, reason: "not reading: a frame line unsent after \(Self.frameWriteTimeout.nanoseconds / 1_000_000_000) s")
        }
        send(line, to: id, bulk: true) { [self] _ in
            deadline.cancel()
            done()
            if let client = clients[id], client.bulkWrites == 0, !client.channel.isWritable {
                cutOff(id, reason: "not reading: more than the client buffer queued")
            }
        }
    }
}

extension Command {
    /// Commands for root and `socket.control_group` only, on a connection that was not restricted:
    /// they change what the scanner does.
    var needsControl: Bool {
        switch self {
        case .pause, .resume, .trigger, .torch, .beep: true
        case .status, .metrics, .subscribe, .unsubscribe, .ack, .nak, .snapshot, .record, .watch, .unwatch, .restrict: false
        }
    }

    /// Commands for root and `socket.control_group` only, restricted or not: they show camera images.
    var needsImages: Bool {
        switch self {
        case .snapshot, .record, .watch: true
        case .status, .metrics, .subscribe, .unsubscribe, .ack, .nak, .pause, .resume, .trigger, .torch, .beep, .unwatch, .restrict: false
        }
    }
}
