import NIOCore
import ScannerCore
import ScannerProtocol

/// A read waiting in the hold queue, with whom to tell what became of it.
struct HeldRead {
    let read: Read
    /// CLOCK_MONOTONIC nanoseconds when it was first held.
    let since: UInt64
    let report: @Sendable (SocketOutcome) -> Void
}

/// Delivery (README, "The socket"): a read is delivered when a consumer's write of it completed;
/// while no client consumes scans it is held; every read ends delivered or dropped with a reason.
extension SocketServer {
    /// Hands a read over; `report` learns its outcome on the event loop: `delivered` or
    /// `dropped`, perhaps after `held`.
    public func deliver(_ read: Read, report: @escaping @Sendable (SocketOutcome) -> Void) {
        eventLoop.execute { [self] in
            route(HeldRead(read: read, since: NIODeadline.now().uptimeNanoseconds, report: report))
        }
    }

    /// Reads held now (for `status`).
    var heldCount: Int { held.count }

    /// Writes a read to every consumer, or holds it when there is none.
    func route(_ entry: HeldRead) {
        guard let shown = config.formatting.shownText(for: entry.read) else { return filter(entry) }
        // A consumer whose channel is closing is gone already, though its close is not yet seen.
        let consumers = clients.filter { $0.value.role == .consumer && $0.value.channel.isActive }.keys.sorted()
        guard !consumers.isEmpty else { return hold(entry) }
        let targets = consumers.filter(isWritable)
        guard !targets.isEmpty else { return drop(entry, reason: "clients-stalled") }
        // JSON carries the read as decoded, and the formatted text beside it when there is formatting.
        let line =
            config.format == .json
            ? Event.scan(entry.read, formatted: config.formatting.isIdentity ? nil : shown, encoder: encoder) : shown.escapedForPlainLine
        let fanout = Fanout(waiting: targets.count)
        for id in targets {
            send(line, to: id) { [self] written in
                fanout.waiting -= 1
                if written && !fanout.delivered {
                    fanout.delivered = true
                    counters.update {
                        $0.reads += 1
                        $0.readsBySymbology[entry.read.symbology, default: 0] += 1
                    }
                    entry.report(.delivered)
                } else if fanout.waiting == 0 && !fanout.delivered {
                    // Every consumer was gone before the kernel took the line: the read is not lost.
                    logger.notice("read \(entry.read.seq) not written to any client: held again")
                    hold(entry)
                    flushHeld()
                }
            }
        }
    }

    /// Puts a read in the hold queue, in read order, within `hold_count`.
    private func hold(_ entry: HeldRead) {
        guard config.holdCount > 0 else { return drop(entry, reason: "no-client") }
        let position = held.firstIndex { $0.read.seq > entry.read.seq } ?? held.endIndex
        held.insert(entry, at: position)
        logger.debug("holding read \(entry.read.seq): no client consumes scans", metadata: ["held": "\(held.count)"])
        entry.report(.held)
        if held.count > config.holdCount { drop(held.removeFirst(), reason: "hold-full") }
        // A read held past hold_seconds is dropped then, not only when the next client comes.
        eventLoop.scheduleTask(in: .nanoseconds(Int64(config.holdSeconds * 1e9) + 1_000_000)) { [self] in expireHeld() }
    }

    /// Drops the held reads older than `hold_seconds`.
    private func expireHeld() {
        let now = NIODeadline.now().uptimeNanoseconds
        let limit = UInt64(config.holdSeconds * 1e9)
        let expired = held.filter { now - $0.since > limit }
        guard !expired.isEmpty else { return }
        held.removeAll { now - $0.since > limit }
        for entry in expired { drop(entry, reason: "hold-expired") }
    }

    /// Sends the held reads to the consumers, oldest first (expired ones are dropped).
    func flushHeld() {
        expireHeld()
        guard !held.isEmpty, clients.values.contains(where: { $0.role == .consumer && $0.channel.isActive }) else { return }
        let waiting = held
        held.removeAll()
        for entry in waiting { route(entry) }
    }

    /// Counts and logs a read that a formatting rule sends as nothing.
    private func filter(_ entry: HeldRead) {
        counters.update { $0.dropped["rule", default: 0] += 1 }
        logger.info("read sent as nothing by a formatting rule", metadata: ["seq": "\(entry.read.seq)", "symbology": "\(entry.read.symbology)"])
        entry.report(.filtered)
    }

    /// Counts and logs a read that will never be delivered.
    func drop(_ entry: HeldRead, reason: String) {
        counters.update { $0.dropped[reason, default: 0] += 1 }
        logger.warning("read dropped: \(reason)", metadata: ["seq": "\(entry.read.seq)", "symbology": "\(entry.read.symbology)"])
        entry.report(.dropped(reason))
    }
}

extension String {
    /// The plain-mode line of a read's text, with line breaks escaped so that one read stays one line.
    var escapedForPlainLine: String {
        escaping(["\r": "\\r", "\n": "\\n"])
    }
}

extension String {
    /// The string with each of `replacements`' scalars replaced by its text. By scalar, not by
    /// Character: "\r\n" is one Character, and both of its scalars must be escaped.
    func escaping(_ replacements: [Unicode.Scalar: String]) -> String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let replacement = replacements[scalar] { escaped += replacement } else { escaped.unicodeScalars.append(scalar) }
        }
        return escaped
    }
}

/// One read's writes to several clients: delivered at the first that completes.
private final class Fanout {
    var waiting: Int
    var delivered = false
    init(waiting: Int) { self.waiting = waiting }
}
