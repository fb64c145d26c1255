import Foundation
import Logging
import NIOCore
import NIOPosix
import ScannerCore
import Synchronization

/// What socket commands act on.
public protocol CommandTarget: Sendable {
    /// Carries out a command other than `status`.
    func execute(_ command: Command) -> Result<Void, CommandError>
    /// The state `status` reports.
    var snapshot: ScannerSnapshot { get }
}

/// The UNIX socket a POS application connects to: every read to every client in order, `state`
/// events, commands with replies, and reads held while nobody is connected.
public final class SocketServer: ReadSink, @unchecked Sendable {
    private let config: SocketConfig
    private let eventLoop: any EventLoop
    private let counters: Counters
    private let logger: Logger
    private let target: any CommandTarget
    private let encoder = JSONEncoder.forEvents()
    private let listener = Mutex<(any Channel)?>(nil)
    private let socketInode = Mutex<ino_t?>(nil)
    /// Connected clients; read outside the event loop only to answer `deliver`.
    private let connected = Atomic<Int>(0)

    // Touched on `eventLoop` only.
    private var clients: [Int: any Channel] = [:]
    private var nextClientID = 0
    private var held: [(read: Read, since: UInt64)] = []

    public init(config: SocketConfig, eventLoop: any EventLoop, counters: Counters, target: any CommandTarget, logger: Logger) {
        self.config = config
        self.eventLoop = eventLoop
        self.counters = counters
        self.target = target
        self.logger = logger
    }

    /// Binds the socket, replacing a stale socket file but never one a live daemon is serving;
    /// or takes the listening socket systemd passed (socket activation, `LISTEN_FDS`).
    public func start() async throws {
        let limit = config.clientBufferBytes
        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 128)
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
        let channel = try await bootstrap.bind(unixDomainSocketPath: config.path).get()
        listener.withLock { $0 = channel }
        let published = SocketPath.publish(config.path, mode: config.mode, group: config.group)
        socketInode.withLock { $0 = published.inode }
        if let problem = published.problem { logger.error("\(problem)") }
        logger.info("listening on \(config.path)", metadata: ["mode": "\(String(config.mode, radix: 8))", "format": "\(config.format.rawValue)"])
    }

    /// Closes every connection and removes the socket file (if it is still ours).
    public func stop() async {
        let channel = listener.withLock { $0 }
        try? await channel?.close()
        try? await eventLoop.submit { [self] in
            for client in clients.values { client.close(promise: nil) }
            let undelivered = held.count
            if undelivered > 0 {
                counters.update { $0.dropped["shutdown", default: 0] += undelivered }
                logger.warning("dropped \(undelivered) held reads at shutdown: no client connected")
            }
            held.removeAll()
        }.get()
        if let inode = socketInode.withLock({ $0 }) { SocketPath.remove(config.path, ifInode: inode) }
    }

    public func deliver(_ read: Read) -> Bool {
        let willDeliver = connected.load(ordering: .relaxed) > 0 || config.holdCount > 0
        eventLoop.execute { [self] in broadcast(read) }
        return willDeliver
    }

    /// Sends a `state` event to every client (JSON format only).
    public func publish(_ snapshot: ScannerSnapshot) {
        guard config.format == .json else { return }
        eventLoop.execute { [self] in
            let line = Event.state(snapshot, encoder: encoder)
            for client in clients.values where client.isWritable { write(line, to: client) }
        }
    }

    // MARK: On the event loop

    private func broadcast(_ read: Read) {
        guard !clients.isEmpty else {
            hold(read)
            return
        }
        let line = config.format == .json ? Event.scan(read, encoder: encoder) : read.plainText
        var delivered = false
        for client in clients.values where client.isWritable {
            write(line, to: client)
            delivered = true
        }
        if !delivered { drop(1, reason: "clients-stalled", read: read) }
    }

    private func hold(_ read: Read) {
        guard config.holdCount > 0 else {
            drop(1, reason: "no-client", read: read)
            return
        }
        held.append((read, NIODeadline.now().uptimeNanoseconds))
        logger.debug("holding read \(read.seq): no client connected", metadata: ["held": "\(held.count)"])
        if held.count > config.holdCount {
            let oldest = held.removeFirst()
            drop(1, reason: "hold-full", read: oldest.read)
        }
    }

    private func drop(_ count: Int, reason: String, read: Read) {
        counters.update { $0.dropped[reason, default: 0] += count }
        logger.warning("read dropped: \(reason)", metadata: ["seq": "\(read.seq)", "symbology": "\(read.symbology)"])
    }

    fileprivate func connect(_ channel: any Channel) -> Int {
        nextClientID += 1
        clients[nextClientID] = channel
        connected.store(clients.count, ordering: .relaxed)
        counters.update { $0.clients = clients.count }
        logger.info("client \(nextClientID) connected", metadata: ["clients": "\(clients.count)"])
        if config.format == .json { write(Event.state(target.snapshot, encoder: encoder), to: channel) }
        flushHeld(to: channel)
        return nextClientID
    }

    fileprivate func disconnect(_ id: Int, reason: String) {
        guard clients.removeValue(forKey: id) != nil else { return }
        connected.store(clients.count, ordering: .relaxed)
        counters.update { $0.clients = clients.count }
        logger.info("client \(id) disconnected: \(reason)", metadata: ["clients": "\(clients.count)"])
    }

    private func flushHeld(to channel: any Channel) {
        let now = NIODeadline.now().uptimeNanoseconds
        for entry in held {
            if Double(now - entry.since) / 1e9 > config.holdSeconds {
                drop(1, reason: "hold-expired", read: entry.read)
            } else {
                write(config.format == .json ? Event.scan(entry.read, encoder: encoder) : entry.read.plainText, to: channel)
            }
        }
        held.removeAll()
    }

    fileprivate func reply(to line: Substring?) -> String {
        guard let line else { return errorReply("line longer than \(Command.maxLineBytes) bytes") }
        switch Command.parse(String(line)) {
        case .failure(let error):
            return errorReply(error.message)
        case .success(.status):
            let snapshot = target.snapshot
            if config.format == .plain {
                let counts = counters.snapshot
                return "ok camera=\(snapshot.camera.state.rawValue) torch=\(snapshot.torch ? "on" : "off") mode=\(snapshot.mode.rawValue) paused=\(snapshot.paused) reads=\(counts.reads) clients=\(clients.count)"
            }
            let status = StatusReply(state: StateEvent(snapshot), counters: counters.snapshot, clients: clients.count, held: held.count)
            return Event.reply("status", ok: true, status: status, encoder: encoder)
        case .success(.metrics):
            let text = Metrics.prometheus(counters.snapshot, target.snapshot)
            // Plain: the exposition's lines, then the reply line; JSON: the text in one field.
            return config.format == .plain ? text + "ok" : Event.reply("metrics", ok: true, metrics: text, encoder: encoder)
        case .success(let command):
            switch target.execute(command) {
            case .success: return config.format == .plain ? "ok" : Event.reply(command.name, ok: true, encoder: encoder)
            case .failure(let error): return errorReply(error.message, command: command.name)
            }
        }
    }

    private func errorReply(_ message: String, command: String? = nil) -> String {
        config.format == .plain ? "error: \(message)" : Event.reply(command, ok: false, error: message, encoder: encoder)
    }

    fileprivate func write(_ line: String, to channel: any Channel) {
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        channel.writeAndFlush(buffer, promise: nil)
    }
}

extension Read {
    /// The plain-mode line: the text, or the bytes as Latin-1 when they are not UTF-8, with line
    /// breaks escaped so that one read stays one line.
    var plainText: String {
        let raw = text ?? String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        return raw.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
    }
}

/// One client connection: line framing with a length limit, commands, and the stalled-client rule.
private final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let server: SocketServer
    private var id = 0
    private var pending: [UInt8] = []
    private var discarding = false

    init(server: SocketServer) { self.server = server }

    func channelActive(context: ChannelHandlerContext) {
        id = server.connect(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.disconnect(id, reason: "closed")
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        var start = 0
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if discarding {
                discarding = false
                server.write(server.reply(to: nil), to: context.channel)
            } else {
                let line = pending + bytes[start..<newline]
                let text = line.count <= Command.maxLineBytes ? String(decoding: line, as: UTF8.self)[...] : nil
                server.write(server.reply(to: text), to: context.channel)
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
        if !context.channel.isWritable {
            server.disconnect(id, reason: "not reading: more than the client buffer queued")
            context.close(promise: nil)
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        server.disconnect(id, reason: "\(error)")
        context.close(promise: nil)
    }
}
