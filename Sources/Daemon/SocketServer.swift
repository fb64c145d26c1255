import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOPosix
import Outputs
import ScannerCore
import ScannerProtocol
import Synchronization
import SystemPackage

/// What socket commands act on.
public protocol CommandTarget: Sendable {
    /// Carries out a command other than `status`.
    func execute(_ command: Command) -> Result<Void, CommandError>
    /// The state `status` reports.
    var snapshot: ScannerSnapshot { get }
    /// How each output besides the socket is doing.
    var outputHealth: [OutputHealth] { get }
}

/// What became of a read at the socket. Reported once as `delivered` or `dropped`, perhaps after `held`.
public enum SocketOutcome: Sendable, Equatable {
    /// A consumer's write of it completed.
    case delivered
    /// No client consumes scans now: it waits in the hold queue.
    case held
    /// It will never be delivered, for this reason (also its `dropped` counter).
    case dropped(String)
    /// A formatting rule sends it as nothing: handled as configured (counted as dropped, reason `rule`).
    case filtered
}

/// The UNIX socket a POS application connects to: every read to every client that consumes scans,
/// in order; `state` events; commands with replies; reads held while nobody consumes them.
/// Delivery and hold: `SocketServer+Delivery.swift`; commands: `SocketServer+Commands.swift`.
public final class SocketServer: @unchecked Sendable {
    let config: SocketConfig
    let eventLoop: any EventLoop
    let counters: Counters
    let logger: Logger
    let target: any CommandTarget
    let tap: FrameTap
    let access: SocketAccess
    let encoder = JSONEncoder.forEvents()
    private let listener = Mutex<(any Channel)?>(nil)
    private let socketInode = Mutex<ino_t?>(nil)

    /// One connection, as the server sees it.
    struct Client {
        /// Whether reads are written to it.
        enum Role { case undecided, consumer, control }

        let channel: any Channel
        let peer: SocketPeer?
        let mayControl: Bool
        var role: Role
        /// Bytes handed to the channel whose write has not completed.
        var queued = 0
        /// Frame lines (snapshot, record) being written: such a client is not cut off for their size.
        var bulkWrites = 0
    }

    // Touched on `eventLoop` only.
    var clients: [Int: Client] = [:]
    private var nextClientID = 0
    var held: [HeldRead] = []
    /// Bytes queued for all clients together.
    private var queuedTotal = 0

    init(config: SocketConfig, eventLoop: any EventLoop, counters: Counters, target: any CommandTarget, tap: FrameTap, logger: Logger) {
        self.config = config
        self.eventLoop = eventLoop
        self.counters = counters
        self.target = target
        self.tap = tap
        self.logger = logger
        access = SocketAccess(controlGroup: config.controlGroup, logger: logger)
    }

    /// Binds the socket, replacing a stale socket file but never one a live daemon is serving;
    /// or takes the listening socket systemd passed (socket activation, `LISTEN_FDS`).
    public func start() async throws {
        let limit = config.clientBufferBytes
        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 128)
            // Out of descriptors (EMFILE, ENFILE): accept again a second later instead of at once, forever.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler()) }
            }
            .childChannelOption(.writeBufferWaterMark, value: .init(low: limit / 2, high: limit))
            // The kernel's own queue for a client is bounded by the same figure.
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(limit))
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ClientHandler(server: self))
                }
            }
        if let inherited = SocketActivation.listeningDescriptor() {
            // systemd owns the file, its mode and group (kiosk-scanner.socket); we never remove it.
            let channel = try await bootstrap.withBoundSocket(inherited).get()
            listener.withLock { $0 = channel }
            logger.info("listening on the socket systemd passed (fd \(inherited))", metadata: ["format": "\(config.format.rawValue)"])
            return
        }
        try SocketPath.prepare(config.path)
        // Bound under a private name, given its mode and group, then renamed into place: no client
        // can connect before the permissions are right.
        let staging = SocketPath.stagingPath(for: config.path)
        let channel = try await bootstrap.bind(unixDomainSocketPath: staging, cleanupExistingSocketFile: true).get()
        listener.withLock { $0 = channel }
        var published = SocketPath.publish(staging, mode: config.mode, group: config.group)
        if rename(staging, config.path) != 0 {
            published.problem = published.problem ?? "cannot move the socket into place at \(config.path): \(Errno(rawValue: errno).description)"
            unlink(staging)
        }
        socketInode.withLock { $0 = published.inode }
        if let problem = published.problem { logger.error("\(problem)") }
        logger.info("listening on \(config.path)", metadata: ["mode": "\(String(config.mode, radix: 8))", "format": "\(config.format.rawValue)"])
    }

    /// Closes every connection and removes the socket file (if it is still ours).
    public func stop() async {
        let channel = listener.withLock { $0 }
        try? await channel?.close()
        try? await eventLoop.submit { [self] in
            for client in clients.values { client.channel.close(promise: nil) }
            let undelivered = held
            held.removeAll()
            for entry in undelivered { drop(entry, reason: "shutdown") }
            if !undelivered.isEmpty { logger.warning("dropped \(undelivered.count) held reads at shutdown: no client consumed them") }
        }.get()
        if let inode = socketInode.withLock({ $0 }) { SocketPath.remove(config.path, ifInode: inode) }
    }

    /// Sends a `state` event to every client (JSON format only).
    public func publish(_ snapshot: ScannerSnapshot) {
        guard config.format == .json else { return }
        eventLoop.execute { [self] in
            let line = Event.state(StateEvent(snapshot), encoder: encoder)
            for (id, client) in clients where client.channel.isWritable { send(line, to: id) }
        }
    }

    // MARK: Connections, on the event loop

    /// Takes a new connection; nil when it was refused (the client limit, or too few descriptors
    /// left), after telling it why.
    fileprivate func connect(_ channel: any Channel) -> Int? {
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
        let role: Client.Role = config.consumerAfterSeconds > 0 ? .undecided : .consumer
        clients[id] = Client(channel: channel, peer: peer, mayControl: access.mayControl(peer), role: role)
        counters.update { $0.clients = clients.count }
        logger.info("client \(id) connected", metadata: ["clients": "\(clients.count)", "peer": "\(peer?.description ?? "unknown")"])
        return id
    }

    /// The first lines a client gets: the state, and held reads once it consumes scans. Called
    /// after `connect` returned, so a client that is already gone is removed by `disconnect`.
    fileprivate func greet(_ id: Int) {
        if config.format == .json { send(Event.state(StateEvent(target.snapshot), encoder: encoder), to: id) }
        guard let client = clients[id] else { return }
        if client.role == .consumer {
            flushHeld()
        } else {
            eventLoop.scheduleTask(in: .nanoseconds(Int64(config.consumerAfterSeconds * 1e9))) { [self] in
                // Still silent about its role: a POS application that just reads.
                if clients[id]?.role == .undecided { becomeConsumer(id) }
            }
        }
    }

    /// `id` consumes scans from now on: reads are written to it, and the held ones go to it first.
    func becomeConsumer(_ id: Int) {
        guard clients[id] != nil, clients[id]?.role != .consumer else { return }
        clients[id]?.role = .consumer
        logger.debug("client \(id) consumes scans")
        flushHeld()
    }

    /// Forgets a connection that closed, failed or was cut off.
    func disconnect(_ id: Int, reason: String) {
        tap.remove(id: id)
        guard let client = clients.removeValue(forKey: id) else { return }
        queuedTotal -= client.queued
        counters.update { $0.clients = clients.count }
        logger.info("client \(id) disconnected: \(reason)", metadata: ["clients": "\(clients.count)"])
    }

    /// Disconnects and closes `id`.
    func cutOff(_ id: Int, reason: String) {
        guard let channel = clients[id]?.channel else { return }
        disconnect(id, reason: reason)
        channel.close(promise: nil)
    }

    // MARK: Writes, on the event loop

    /// Writes `line` and a newline to `id`; `completion` learns whether the write completed (the
    /// kernel took the bytes). Counts against the client's and the total queue limits.
    func send(_ line: String, to id: Int, bulk: Bool = false, completion: ((Bool) -> Void)? = nil) {
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
        promise.futureResult.whenComplete { [self] result in
            if clients[id]?.channel === channel {
                clients[id]?.queued -= size
                if bulk { clients[id]?.bulkWrites -= 1 }
                queuedTotal -= size
            }
            if case .failure = result {
                logger.debug("write to client \(id) failed: \(result)")
            }
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

    fileprivate func writabilityChanged(_ id: Int) {
        guard let client = clients[id], !client.channel.isWritable, client.bulkWrites == 0 else { return }
        cutOff(id, reason: "not reading: more than the client buffer queued")
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

/// One client connection: line framing with a length limit, commands, and the stalled-client rule.
private final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let server: SocketServer
    /// nil until connected, and for a refused connection.
    private var id: Int?
    private var pending: [UInt8] = []
    private var discarding = false

    init(server: SocketServer) { self.server = server }

    func channelActive(context: ChannelHandlerContext) {
        // The id is known before anything is written: a write that fails at once closes the
        // channel, and channelInactive must then find the client to remove.
        id = server.connect(context.channel)
        if let id { server.greet(id) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let id { server.disconnect(id, reason: "closed") }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let id else { return }
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        var start = 0
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if discarding {
                discarding = false
                server.handle(nil, from: id)
            } else {
                let line = pending + bytes[start..<newline]
                server.handle(line.count <= Command.maxLineBytes ? String(decoding: line, as: UTF8.self)[...] : nil, from: id)
            }
            pending.removeAll(keepingCapacity: true)
            start = newline + 1
        }
        if !discarding {
            pending += bytes[start...]
            if pending.count > Command.maxLineBytes {
                // Oversized: forget it now and answer once its newline arrives.
                discarding = true
                pending.removeAll()
            }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if let id { server.writabilityChanged(id) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let id { server.disconnect(id, reason: "\(error)") }
        context.close(promise: nil)
    }
}
