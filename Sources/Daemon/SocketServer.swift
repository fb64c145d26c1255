import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOPosix
import Outputs
import ScannerCore
import Synchronization

/// What socket commands act on.
public protocol CommandTarget: Sendable {
    /// Carries out a command other than `status`.
    func execute(_ command: Command) -> Result<Void, CommandError>
    /// The state `status` reports.
    var snapshot: ScannerSnapshot { get }
    /// How each output besides the socket is doing.
    var outputHealth: [OutputHealth] { get }
}

/// The UNIX socket a POS application connects to: every read to every client in order, `state`
/// events, commands with replies, and reads held while nobody is connected.
public final class SocketServer: ReadSink, @unchecked Sendable {
    private let config: SocketConfig
    private let eventLoop: any EventLoop
    private let counters: Counters
    private let logger: Logger
    private let target: any CommandTarget
    private let tap: FrameTap
    private let encoder = JSONEncoder.forEvents()
    private let listener = Mutex<(any Channel)?>(nil)
    private let socketInode = Mutex<ino_t?>(nil)
    /// Connected clients; read outside the event loop only to answer `deliver`.
    private let connected = Atomic<Int>(0)

    // Touched on `eventLoop` only.
    private var clients: [Int: any Channel] = [:]
    private var nextClientID = 0
    private var held: [(read: Read, since: UInt64)] = []
    /// Frame lines (snapshot, record) still being written, per client: such a client is not cut
    /// off for the size of its own frames.
    private var bulkWrites: [Int: Int] = [:]

    init(config: SocketConfig, eventLoop: any EventLoop, counters: Counters, target: any CommandTarget, tap: FrameTap, logger: Logger) {
        self.config = config
        self.eventLoop = eventLoop
        self.counters = counters
        self.target = target
        self.tap = tap
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
        // Bound under a private name, given its mode and group, then renamed into place: no client
        // can connect before the permissions are right.
        let staging = SocketPath.stagingPath(for: config.path)
        let channel = try await bootstrap.bind(unixDomainSocketPath: staging, cleanupExistingSocketFile: true).get()
        listener.withLock { $0 = channel }
        var published = SocketPath.publish(staging, mode: config.mode, group: config.group)
        if rename(staging, config.path) != 0 {
            published.problem = published.problem ?? "cannot move the socket into place at \(config.path): \(String(cString: strerror(errno)))"
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
        for (id, client) in clients where client.isWritable || bulkWrites[id] != nil {
            write(line, to: client)
            delivered = true
        }
        if delivered { countDelivered(read) } else { drop(1, reason: "clients-stalled", read: read) }
    }

    private func countDelivered(_ read: Read) {
        counters.update {
            $0.reads += 1
            $0.readsBySymbology[read.symbology, default: 0] += 1
        }
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
        tap.remove(id: id)
        bulkWrites[id] = nil
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
                countDelivered(entry.read)
            }
        }
        held.removeAll()
    }

    /// The reply to one command line; nil when the reply comes later (`snapshot`).
    fileprivate func reply(to line: Substring?, from client: Int) -> String? {
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
            let status = StatusReply(
                state: StateEvent(snapshot), counters: counters.snapshot, clients: clients.count, held: held.count, outputs: target.outputHealth)
            return Event.reply("status", ok: true, status: status, encoder: encoder)
        case .success(.metrics):
            let text = Metrics.prometheus(counters.snapshot, target.snapshot, outputs: target.outputHealth)
            // Plain: the exposition's lines, then the reply line; JSON: the text in one field.
            return config.format == .plain ? text + "ok" : Event.reply("metrics", ok: true, metrics: text, encoder: encoder)
        case .success(.snapshot):
            return requestFrames(.snapshot, for: client)
        case .success(.record(let seconds)):
            return requestFrames(.record(until: SystemdNotifier.monotonicNanoseconds() + UInt64(seconds * 1e9)), for: client)
        case .success(let command):
            switch target.execute(command) {
            case .success: return config.format == .plain ? "ok" : Event.reply(command.name, ok: true, encoder: encoder)
            case .failure(let error): return errorReply(error.message, command: command.name)
            }
        }
    }

    /// Asks the capture loop for frames for `client`. A snapshot is answered with its frame (or an
    /// error after `snapshotTimeout`); a recording is answered at once, then sends `frame` events and
    /// ends with `record-end`. Frame lines are JSON in either socket format: only our tools ask for them.
    private func requestFrames(_ kind: FrameTap.Kind, for client: Int) -> String? {
        let name = if case .snapshot = kind { "snapshot" } else { "record" }
        let camera = target.snapshot.camera
        guard camera.state == .streaming else {
            return errorReply("no frame: camera \(camera.state.rawValue)\(camera.detail.map { " (\($0))" } ?? "")", command: name)
        }
        guard bulkWrites[client] == nil, tap.remove(id: client) == false else {
            return errorReply("a snapshot or recording is already running on this connection", command: name)
        }
        let busy = Atomic<Bool>(false)
        let take: @Sendable (TappedFrame) -> Bool = { [self] frame in
            // One frame in flight per client: a client that cannot keep up misses frames, it is not queued for.
            guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return false }
            eventLoop.execute { [self] in
                let line: String
                switch kind {
                case .snapshot: line = Event.withLuma(Event.reply("snapshot", ok: true, frame: FrameEvent(frame), encoder: encoder), frame)
                case .record: line = Event.frame(frame, encoder: encoder)
                }
                writeBulk(line, to: client) { busy.store(false, ordering: .releasing) }
            }
            return true
        }
        switch kind {
        case .snapshot:
            tap.add(id: client, kind: kind, take: take, end: { _ in })
            eventLoop.scheduleTask(in: Self.snapshotTimeout) { [self] in
                guard tap.remove(id: client), let channel = clients[client] else { return }
                write(errorReply("no frame within \(Self.snapshotTimeout.nanoseconds / 1_000_000_000) s", command: "snapshot"), to: channel)
            }
            return nil
        case .record(let until):
            let end: @Sendable (Int) -> Void = { [self] skipped in
                eventLoop.execute { [self] in
                    guard let channel = clients[client] else { return }
                    write(Event.recordEnd(skipped: skipped, encoder: encoder), to: channel)
                }
            }
            tap.add(id: client, kind: kind, take: take, end: end)
            logger.info("client \(client) records frames until \(until / 1_000_000) ms (monotonic)")
            // Ends the recording on time even when no frame comes (the capture loop ends it otherwise).
            let seconds = Double(until - SystemdNotifier.monotonicNanoseconds()) / 1e9
            eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000) + 1000)) { [self] in
                if tap.remove(id: client) { end(0) }
            }
            return Event.reply("record", ok: true, encoder: encoder)
        }
    }

    /// How long a snapshot waits for a frame from a streaming camera.
    static let snapshotTimeout = TimeAmount.seconds(3)
    /// How long one frame line may take to reach a client.
    static let frameWriteTimeout = TimeAmount.seconds(10)

    private func writeBulk(_ line: String, to client: Int, done: @escaping @Sendable () -> Void) {
        guard let channel = clients[client] else { return done() }
        bulkWrites[client, default: 0] += 1
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        let promise = eventLoop.makePromise(of: Void.self)
        // A client that stops reading in the middle of a frame is cut off like any stalled client.
        let deadline = eventLoop.scheduleTask(in: Self.frameWriteTimeout) { [self] in
            disconnect(client, reason: "not reading: a frame line unsent after \(Self.frameWriteTimeout.nanoseconds / 1_000_000_000) s")
            channel.close(promise: nil)
        }
        promise.futureResult.whenComplete { [self] _ in
            deadline.cancel()
            if let pending = bulkWrites[client] { bulkWrites[client] = pending > 1 ? pending - 1 : nil }
            done()
            if bulkWrites[client] == nil, !channel.isWritable, clients[client] != nil {
                disconnect(client, reason: "not reading: more than the client buffer queued")
                channel.close(promise: nil)
            }
        }
        channel.writeAndFlush(buffer, promise: promise)
    }

    /// Whether `client` has frame lines being written (its buffer may then exceed the limit).
    fileprivate func isSendingFrames(_ client: Int) -> Bool { bulkWrites[client] != nil }

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
    /// The plain-mode line: `shownText`, with line breaks escaped so that one read stays one line.
    var plainText: String {
        shownText.escaping(["\r": "\\r", "\n": "\\n"])
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
                server.write(server.reply(to: nil, from: id)!, to: context.channel)
            } else {
                let line = pending + bytes[start..<newline]
                let text = line.count <= Command.maxLineBytes ? String(decoding: line, as: UTF8.self)[...] : nil
                if let reply = server.reply(to: text, from: id) { server.write(reply, to: context.channel) }
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
        if !context.channel.isWritable && !server.isSendingFrames(id) {
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
