import Imaging
import NIOCore
import NIOPosix
import Platform
import ScannerProtocol
import SystemPackage

/// A read whose line a consumer's kernel queue took, not yet read (or acked) by the consumer.
struct Awaiting {
    let seq: UInt64
    let since: NIODeadline
}

/// The socket's connections (docs/socket-protocol.md): who consumes scans, what each has not read
/// or acked, writes with their queue limits, and the check of unread counts and deadlines.
extension Delivery {
    /// One connection, as delivery sees it.
    struct Client {
        /// Whether reads are written to it.
        enum Role { case undecided, consumer, control }

        let channel: any Channel
        let peer: SocketPeer?
        /// Control commands: its peer's right, until the connection is restricted.
        var mayControl: Bool
        /// Camera images: its peer's right (root and `socket.control_group`), which `restrict` keeps.
        let mayTakeImages: Bool
        let mayConsume: Bool
        var role: Role
        /// It sent `subscribe` (and not `unsubscribe` since): it consumes scans even while it watches.
        var subscribed = false
        /// It sent `restrict`: no control commands from it, whoever its peer is.
        var restricted = false
        /// Its `watch`, while one runs.
        var watch: Watch?
        /// False once it let a read go unread (or unacked) past the timeout: no read is written to it
        /// until it reads (or acks) again.
        var consuming = true
        /// Reads its kernel queue took that it has not read (or acked), oldest first.
        var awaiting: [Awaiting] = []
        /// Bytes handed to the channel whose write has not completed.
        var queued = 0
        /// Frame lines (snapshot, record, view) being written: such a client is not cut off for their size.
        var bulkWrites = 0

        /// Whether reads are written to it now.
        var takesReads: Bool { role == .consumer && consuming && channel.isActive }
    }

    // MARK: Connections

    /// Takes a new connection; nil when it was refused (the client limit, or too few descriptors
    /// left), after telling it why.
    func connect(_ channel: any Channel) -> Int? {
        eventLoop.preconditionInEventLoop()
        let limit = config.maxClients
        let refusal: String? =
            clients.count >= limit
            ? "too many clients (socket.max_clients \(limit))"
            : DescriptorHeadroom.allowsClient() ? nil : "too many open files: the daemon keeps its last descriptors for the camera"
        if let refusal {
            counters.update { $0.clientsRefused += 1 }
            logger.warning("client refused: \(refusal)", metadata: ["clients": "\(clients.count)"])
            let buffer = channel.allocator.buffer(string: errorReply(refusal) + "\n")
            channel.writeAndFlush(buffer).whenComplete { _ in channel.close(promise: nil) }
            return nil
        }
        nextClientID += 1
        let id = nextClientID
        let peer = SocketPeer.of(channel)
        let mayConsume = access.mayConsume(peer)
        let role: Client.Role = !mayConsume ? .control : config.consumerAfterSeconds > 0 ? .undecided : .consumer
        let mayControl = access.mayControl(peer)
        clients[id] = Client(channel: channel, peer: peer, mayControl: mayControl, mayTakeImages: mayControl, mayConsume: mayConsume, role: role)
        counters.update { $0.clients = clients.count }
        logger.info("client \(id) connected", metadata: ["clients": "\(clients.count)", "peer": "\(peer?.description ?? "unknown")"])
        return id
    }

    /// The first lines a client gets: the state, and held reads once it consumes scans. Called
    /// after `connect` returned, so a client that is already gone is removed by `disconnect`.
    func greet(_ id: Int) {
        if config.format == .json { send(Event.state(StateEvent(target.snapshot), encoder: encoder), to: id) }
        guard let client = clients[id] else { return }
        switch client.role {
        case .consumer:
            flushHeld()
        case .undecided:
            eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(config.consumerAfterSeconds * 1e9))) { [self] in
                // Still silent about its role: a POS application that just reads.
                if clients[id]?.role == .undecided { becomeConsumer(id) }
            }
        case .control:
            break
        }
    }

    /// `id` consumes scans from now on: reads are written to it, and the held ones go to it first.
    /// A consumer that had let reads time out takes reads again.
    func becomeConsumer(_ id: Int) {
        guard let client = clients[id], client.mayConsume else { return }
        if client.role == .consumer { return resume(id) }
        clients[id]?.role = .consumer
        logger.debug("client \(id) consumes scans")
        flushHeld()
    }

    /// `id` answers again (it read, acked, naked or subscribed): if it had let reads time out, reads
    /// are written to it again, the held ones first.
    func resume(_ id: Int) {
        guard clients[id]?.consuming == false else { return }
        clients[id]!.consuming = true
        logger.notice("client \(id) takes reads again")
        flushHeld()
    }

    /// Forgets a connection that closed, failed or was cut off; the reads only it had are routed again.
    func disconnect(_ id: Int, reason: String) {
        eventLoop.preconditionInEventLoop()
        tap.remove(id: id)
        if clients[id]?.watch != nil { endWatch(id, reason: reason) }
        guard let client = clients.removeValue(forKey: id) else { return }
        queuedTotal -= client.queued
        counters.update { $0.clients = clients.count }
        logger.info("client \(id) disconnected: \(reason)", metadata: ["clients": "\(clients.count)"])
        for seq in pending.keys.sorted() where pending[seq]?.holders.contains(id) == true { lost(seq, at: id) }
        // Held reads past hold_seconds that were kept only because this client could still read them.
        expireHeld()
    }

    /// `id`'s peer closed its end, maybe just after reading its last line and before the next check:
    /// the lines it read are delivered before the connection is forgotten.
    func peerClosed(_ id: Int) {
        guard config.acknowledge == .none, let client = clients[id], !client.awaiting.isEmpty else { return }
        if peerReading(client.channel) == .readAll { caughtUp(id) }
    }

    /// Disconnects and closes `id`.
    func cutOff(_ id: Int, reason: String) {
        guard let channel = clients[id]?.channel else { return }
        disconnect(id, reason: reason)
        channel.close(promise: nil)
    }

    // MARK: Answers from consumers

    /// `id` read everything up to and including `seq` (nil: everything it was written), as a stream
    /// is read, in order: those reads are delivered, and a consumer that had let reads time out
    /// takes reads again.
    func caughtUp(_ id: Int, through seq: UInt64? = nil) {
        guard clients[id] != nil else { return }
        confirmRead(by: id, through: seq)
        resume(id)
    }

    /// Delivers what `id` read, up to and including `seq` (nil: everything it was written).
    func confirmRead(by id: Int, through seq: UInt64? = nil) {
        guard let client = clients[id] else { return }
        let done = client.awaiting.prefix { seq == nil || $0.seq <= seq! }
        clients[id]!.awaiting.removeFirst(done.count)
        for entry in done { confirm(entry.seq) }
    }

    /// `id` acked `seq`, and that read only (`socket.acknowledge: required`): the POS may take the
    /// reads in another order than they came.
    func acked(_ id: Int, _ seq: UInt64) {
        clients[id]?.awaiting.removeAll { $0.seq == seq }
        confirm(seq)
        resume(id)
    }

    /// Keeps the unread counts and deadlines checked while a read awaits an answer, or a watcher's
    /// view is unread.
    func scheduleTick() {
        // The peer usually reads within a millisecond; a consumer that stopped reading, or a watcher
        // that has not read its view for a while, is checked less often.
        let now = eventLoop.now
        let eager =
            clients.values.contains { $0.consuming && !$0.awaiting.isEmpty } || pending.values.contains { $0.state == .inFlight }
            || clients.values.contains { $0.watch?.unreadSince.map { now - $0 < Self.eagerViewCheck } ?? false }
        guard eager || clients.values.contains(where: { !$0.awaiting.isEmpty || $0.watch?.unreadSince != nil }) else { return }
        let due = now + (eager ? .milliseconds(5) : .milliseconds(100))
        if let tick {
            guard due < tick.deadline else { return }
            tick.task.cancel()
        }
        tick = (
            eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
                tick = nil
                check()
                scheduleTick()
            }, due
        )
    }

    /// What the unread counts and the clock say: reads a consumer has read are delivered; a consumer
    /// with a read unanswered past the timeout takes no more reads; a read no holder answered in time
    /// is held again; a watcher that read its view gets the next.
    func check() {
        let now = eventLoop.now
        for id in clients.keys.sorted() {
            guard let client = clients[id], let oldest = client.awaiting.first else { continue }
            let reading = config.acknowledge == .none ? peerReading(client.channel) : nil
            if reading == .readAll {
                caughtUp(id)
            } else if reading == .discarded {
                cutOff(id, reason: "closed with reads unread")
            } else if client.consuming && now - oldest.since > answerTimeout {
                clients[id]!.consuming = false
                let answer = config.acknowledge == .required ? "acked" : "read"
                logger.warning("client \(id) has not \(answer) read \(oldest.seq) within \(answerTimeout.seconds) s: no more reads go to it until it has")
            }
        }
        for seq in pending.keys.sorted() {
            if let deadline = pending[seq]?.deadline, pending[seq]?.state == .inFlight, deadline <= now { timedOut(seq) }
        }
        for id in clients.keys.sorted() where clients[id]?.watch?.unreadSince != nil { checkView(id) }
    }

    // MARK: Writes

    /// Writes `line` and a newline to `id`; `completion` learns whether the write completed (the
    /// kernel took the bytes). Counts against the client's and the total queue limits.
    func send(_ line: String, to id: Int, bulk: Bool = false, completion: ((Bool) -> Void)? = nil) {
        eventLoop.preconditionInEventLoop()
        guard let channel = clients[id]?.channel else {
            completion?(false)
            return
        }
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        let size = buffer.readableBytes
        clients[id]?.queued += size
        if bulk { clients[id]?.bulkWrites += 1 }
        queuedTotal += size
        let promise = eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { [self] result in
            if clients[id]?.channel === channel {
                clients[id]?.queued -= size
                if bulk { clients[id]?.bulkWrites -= 1 }
                queuedTotal -= size
            }
            if case .failure = result { logger.debug("write to client \(id) failed: \(result)") }
            completion?(result.isSuccess)
        }
        channel.writeAndFlush(buffer, promise: promise)
        if queuedTotal > config.maxQueuedBytes, let largest = clients.max(by: { $0.value.queued < $1.value.queued }), largest.value.queued > 0 {
            cutOff(largest.key, reason: "not reading: the clients' queues together reached socket.max_queued (\(config.maxQueuedBytes) bytes)")
        }
    }

    /// Whether `id` may be written to now: connected, active, and not over its own queue limit
    /// (unless the excess is its own frame lines).
    func isWritable(_ id: Int) -> Bool {
        guard let client = clients[id], client.channel.isActive else { return false }
        return client.channel.isWritable || client.bulkWrites > 0
    }

    func writabilityChanged(_ id: Int) {
        guard let client = clients[id], !client.channel.isWritable, client.bulkWrites == 0 else { return }
        cutOff(id, reason: "not reading: more than the client buffer queued")
    }

    /// Sends a `state` event to every client (JSON format only).
    func publish(_ snapshot: ScannerSnapshot) {
        guard config.format == .json else { return }
        let line = Event.state(StateEvent(snapshot), encoder: encoder)
        for (id, client) in clients where client.channel.isWritable { send(line, to: id) }
    }

    func errorReply(_ message: String, command: String? = nil) -> String {
        config.format == .plain ? "error: \(message)" : Event.reply(command, ok: false, error: message, encoder: encoder)
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}

/// What the peer of a connection has done with the bytes written to it.
enum PeerReading: Equatable {
    /// It read every byte written so far.
    case readAll
    /// Some are still in its queue.
    case unread
    /// It closed with bytes unread: the kernel threw them away.
    case discarded
}

/// The kernel's account of what a socket's peer has read.
enum SocketQueue {
    /// From SIOCOUTQ, which for a UNIX stream socket counts the buffers of the writes the peer has
    /// not read to their end. It also falls to 0 when the peer closes with lines unread (the kernel
    /// frees them), but that close first sets ECONNRESET on our side (af_unix.c, unix_release_sock),
    /// so the error is read after the count. nil for a channel without a socket.
    static func reading(_ channel: any Channel) -> PeerReading? {
        try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) { fd -> PeerReading in
            let socket = FileDescriptor(rawValue: fd)
            guard (try? socket.unreadByPeer()) == 0 else { return .unread }
            let error: Errno?
            do { error = try socket.takeError() } catch { return .unread }
            return error == .connectionReset ? .discarded : .readAll
        }
    }
}
