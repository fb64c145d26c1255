import Codes
import Dispatch
import NIOCore
import ScannerProtocol
import Synchronization

/// A console's connection (docs/socket-protocol.md, watching): `watch` sends views of the camera
/// and the outcome of every read, `restrict` gives up the control commands.
extension Delivery {
    /// One connection's watch, as delivery sees it.
    struct Watch {
        let fps: Int
        let width: Int
        /// Shared with the capture thread and the encoding queue; tells this watch from a later one.
        let slot: ViewSlot
        let started: NIODeadline
        /// Views handed to the connection.
        var views = 0
        /// When the last view was written to the kernel, while its peer has not read everything yet.
        var unreadSince: NIODeadline?
    }

    /// Scales and encodes views, off the capture thread and off the event loop.
    static let viewQueue = DispatchQueue(label: "kiosk-scanner.views")

    /// How long after a view was written its reading is checked every 5 ms; then every 100 ms.
    static var eagerViewCheck: TimeAmount { .seconds(1) }

    /// Starts `id`'s watch: an ok reply, then views and outcomes (both JSON in either socket format).
    func watch(_ id: Int, fps: Int, width: Int) {
        guard let client = clients[id] else { return }
        guard client.watch == nil, client.bulkWrites == 0, !tap.contains(id: id) else {
            return send(errorReply(Self.framesBusy, command: "watch"), to: id)
        }
        if let refusal = imageRefusal(for: "watch (\(fps) fps, \(width) px wide)", from: id) {
            return send(errorReply(refusal, command: "watch"), to: id)
        }
        // A console takes no reads, unless it asked for them.
        if !client.subscribed { clients[id]!.role = .control }
        let slot = ViewSlot()
        clients[id]!.watch = Watch(fps: fps, width: width, slot: slot, started: eventLoop.now)
        send(config.format == .plain ? "ok" : Event.reply("watch", ok: true, encoder: encoder), to: id)
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        let counters = counters
        // On the capture thread, at most `fps` times a second: the frame is copied only when the
        // watcher has read its last view.
        let take: @Sendable (() -> TappedFrame) -> Bool = { make in
            guard slot.busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
                slot.skipped.add(1, ordering: .relaxed)
                counters.update { $0.viewsSkipped += 1 }
                return false
            }
            let frame = make()
            let seq = slot.seq.add(1, ordering: .relaxed).newValue
            Self.viewQueue.async {
                let line = ViewLine.make(frame, seq: seq, width: width)
                bound.eventLoop.execute { bound.value.sendView(line, slot: slot, to: id) }
            }
            return true
        }
        tap.add(id: id, kind: .watch(interval: 1_000_000_000 / UInt64(fps)), take: take, end: { _ in })
    }

    /// Ends `id`'s watch at its `unwatch`.
    func unwatch(_ id: Int) {
        guard clients[id]?.watch != nil else { return send(errorReply("no watch runs on this connection", command: "unwatch"), to: id) }
        endWatch(id, reason: "unwatch")
        send(config.format == .plain ? "ok" : Event.reply("unwatch", ok: true, encoder: encoder), to: id)
    }

    /// Ends `id`'s watch (it asked, or it is gone) and logs what it had; a view on its way is not sent.
    func endWatch(_ id: Int, reason: String) {
        guard let client = clients[id], let watch = client.watch else { return }
        tap.remove(id: id)
        clients[id]!.watch = nil
        let seconds = ((eventLoop.now - watch.started).seconds * 10).rounded() / 10
        let skipped = watch.slot.skipped.load(ordering: .relaxed)
        logger.notice(
            "client \(id) (\(client.peer?.description ?? "unknown peer")) stopped watching (\(reason)) after \(seconds) s: \(watch.views) views sent, \(skipped) skipped"
        )
    }

    /// Writes a view made off the loop, if its watch is still on; a view that could not be made
    /// frees the slot for the next frame.
    func sendView(_ view: Result<String, ViewLine.Failure>, slot: ViewSlot, to id: Int) {
        guard clients[id]?.watch?.slot === slot else { return }
        let line: String
        switch view {
        case .success(let made): line = made
        case .failure(let failure):
            logger.warning("client \(id): a view could not be made: \(failure.reason)")
            return slot.busy.store(false, ordering: .releasing)
        }
        clients[id]!.watch!.views += 1
        counters.update { $0.viewsSent += 1 }
        writeFrame(line, to: id) { [self] in
            guard clients[id]?.watch?.slot === slot else { return }
            clients[id]!.watch!.unreadSince = eventLoop.now
            checkView(id)
            scheduleTick()
        }
    }

    /// Frees `id`'s slot for the next view once its peer has read everything written to it (the
    /// kernel's unread count, as for a read's delivery): one view in flight per watcher.
    func checkView(_ id: Int) {
        guard let client = clients[id], let watch = client.watch, watch.unreadSince != nil else { return }
        // A peer the kernel says nothing about (no socket) counts as one that read it.
        guard (peerReading(client.channel) ?? .readAll) != .unread else { return }
        clients[id]!.watch!.unreadSince = nil
        watch.slot.busy.store(false, ordering: .releasing)
    }

    /// Connections with a watch running.
    var watcherCount: Int { clients.values.count { $0.watch != nil } }

    /// Tells every watcher what became of `read`.
    func tellWatchers(_ read: Read, _ outcome: OutcomeEvent.Outcome, reason: String? = nil) {
        tellWatchers(OutcomeEvent(seq: read.seq, symbology: read.symbology, text: read.text, outcome: outcome, reason: reason))
    }

    func tellWatchers(_ outcome: OutcomeEvent) {
        let watchers = clients.filter { $0.value.watch != nil }.keys.sorted()
        guard !watchers.isEmpty else { return }
        let line = Event.outcome(outcome, encoder: encoder)
        for id in watchers { send(line, to: id) }
    }

    /// `id` gives up the control commands for good (its peer's right to camera images stays).
    func restrict(_ id: Int) {
        guard let client = clients[id] else { return }
        clients[id]!.mayControl = false
        clients[id]!.restricted = true
        logger.notice("client \(id) (\(client.peer?.description ?? "unknown peer")) restricted: no control commands from it")
        send(config.format == .plain ? "ok" : Event.reply("restrict", ok: true, encoder: encoder), to: id)
    }

    /// What a restricted connection is told when it sends a control command.
    static let restrictedRefusal = "permission denied: this connection was restricted (restrict): it sends no control commands"
}

/// What the capture thread, the encoding queue and the event loop share about one watch.
final class ViewSlot: Sendable {
    /// A view is on its way or unread: frames due meanwhile are skipped.
    let busy = Atomic<Bool>(false)
    /// Views numbered from 1, and frames skipped because the last view was unread.
    let seq = Atomic<UInt64>(0)
    let skipped = Atomic<Int>(0)
}
