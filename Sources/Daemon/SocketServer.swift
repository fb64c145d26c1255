import FoundationEssentials
import Logging
import NIOCore
import NIOPosix
import Platform
import ScannerProtocol
import Synchronization
import SystemPackage

/// What socket commands act on.
public protocol CommandTarget: Sendable {
    /// Carries out a command other than `status`.
    func execute(_ command: Command) -> Result<Void, CommandError>
    /// The state `status` reports.
    var snapshot: ScannerSnapshot { get }
    /// How each output besides the socket is doing, as `status` and the metrics show it.
    var outputHealth: [OutputStatus] { get }
}

/// The UNIX socket a POS application connects to: it binds (or takes systemd's socket), accepts
/// connections into `Delivery`, which owns what is written on them, and removes the file at the end.
final class SocketServer: Sendable {
    let config: SocketConfig
    let delivery: NIOLoopBound<Delivery>
    let logger: Logger
    private let listener = Mutex<(any Channel)?>(nil)
    private let socketInode = Mutex<Inode?>(nil)

    init(config: SocketConfig, delivery: NIOLoopBound<Delivery>, logger: Logger) {
        self.config = config
        self.delivery = delivery
        self.logger = logger
    }

    /// Binds the socket, replacing a stale socket file but never one a live daemon is serving;
    /// or takes the listening socket systemd passed (socket activation, `LISTEN_FDS`).
    public func start() async throws {
        let limit = config.clientBufferBytes
        let delivery = delivery
        let bootstrap = ServerBootstrap(group: delivery.eventLoop)
            .serverChannelOption(.backlog, value: 128)
            // Out of descriptors (EMFILE, ENFILE): accept again a second later instead of at once, forever.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler()) }
            }
            .childChannelOption(.writeBufferWaterMark, value: .init(low: limit / 2, high: limit))
            // A peer's close is seen before our end closes, while its unread count can still be read
            // (ClientHandler closes the channel then).
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // The kernel's own queue for a client is bounded by the same figure.
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(limit))
            // The server's loop is the children's: `delivery` is read on its own loop.
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ClientHandler(delivery: delivery.value))
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
        do throws(Errno) {
            try FileSystem.rename(staging, to: config.path)
        } catch {
            published.problem = published.problem ?? "cannot move the socket into place at \(config.path): \(error.description)"
            try? FileSystem.remove(staging)
        }
        socketInode.withLock { $0 = published.inode }
        if let problem = published.problem { logger.error("\(problem)") }
        logger.info("listening on \(config.path)", metadata: ["mode": "\(String(config.mode, radix: 8))", "format": "\(config.format.rawValue)"])
    }

    /// Closes every connection and removes the socket file (if it is still ours).
    public func stop() async {
        let channel = listener.withLock { $0 }
        try? await channel?.close()
        let delivery = delivery
        try? await delivery.eventLoop.submit { delivery.value.shutDown() }.get()
        if let inode = socketInode.withLock({ $0 }) { SocketPath.remove(config.path, ifInode: inode) }
    }
}
