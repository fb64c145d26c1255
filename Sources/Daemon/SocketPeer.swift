import Logging
import NIOCore
import Platform
import SystemPackage

/// Who is at the other end of a connection: the kernel's SO_PEERCRED and SO_PEERGROUPS, taken at
/// connect time.
struct SocketPeer: Sendable, CustomStringConvertible {
    let uid: CInterop.UserID
    let gid: CInterop.GroupID
    let pid: Int32
    /// Its supplementary groups, as the kernel had them when it connected.
    var groups: [CInterop.GroupID] = []

    /// The peer of `channel`, or nil when the kernel does not say (not a UNIX socket).
    static func of(_ channel: any Channel) -> SocketPeer? {
        // On the channel's event loop its socket is at hand, and the options are read at once.
        let peer = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) { fd -> SocketPeer? in
            guard let credentials = try? FileDescriptor(rawValue: fd).peerCredentials() else { return nil }
            return SocketPeer(
                uid: credentials.user.rawValue, gid: credentials.group.rawValue, pid: credentials.pid, groups: peerGroups(of: fd))
        }
        // nil: no socket (or the channel is closed); .some(nil): the kernel would not say.
        return peer ?? nil
    }

    /// The supplementary groups of the peer of the UNIX socket `fd` (SO_PEERGROUPS): the kernel's
    /// own record, so no user database is asked, and nothing can block the event loop.
    static func peerGroups(of fd: Int32) -> [CInterop.GroupID] {
        ((try? FileDescriptor(rawValue: fd).peerGroups()) ?? []).map(\.rawValue)
    }

    var description: String { "uid \(uid), pid \(pid)" }
}

/// What a connection may do (docs/socket-protocol.md: who may do what). `status` and `metrics` are
/// for anyone who can open the socket; taking reads for root and the members of
/// `socket.consumer_group` (anyone, when it is not set); control commands and camera images for
/// root and the members of `socket.control_group`.
struct SocketAccess: Sendable {
    /// The control group's id, when one is configured and exists.
    let controlGID: CInterop.GroupID?
    let controlGroup: String?
    /// The consumer group's id, when one is configured and exists.
    let consumerGID: CInterop.GroupID?
    let consumerGroup: String?

    init(controlGroup: String?, consumerGroup: String?, logger: Logger) {
        self.controlGroup = controlGroup
        self.consumerGroup = consumerGroup
        controlGID = Self.groupID(controlGroup, key: "socket.control_group", who: "only root may control the scanner", logger: logger)
        consumerGID = Self.groupID(consumerGroup, key: "socket.consumer_group", who: "only root may take reads", logger: logger)
    }

    private static func groupID(_ name: String?, key: String, who: String, logger: Logger) -> CInterop.GroupID? {
        guard let name else { return nil }
        if let group = GroupDatabase.id(named: name) { return group.rawValue }
        logger.error("\(key) '\(name)' does not exist: \(who)")
        return nil
    }

    /// Whether `peer` may send control commands and see camera images.
    func mayControl(_ peer: SocketPeer?) -> Bool { Self.isMember(peer, of: controlGID) }

    /// Whether `peer` may take reads.
    func mayConsume(_ peer: SocketPeer?) -> Bool {
        consumerGroup == nil || Self.isMember(peer, of: consumerGID)
    }

    /// Whether `peer` is root or in the group `gid`.
    private static func isMember(_ peer: SocketPeer?, of gid: CInterop.GroupID?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 { return true }
        guard let gid else { return false }
        return peer.gid == gid || peer.groups.contains(gid)
    }

    /// What to tell a peer that may not take reads.
    var consumeRefusal: String {
        "permission denied: taking reads needs root or group \(consumerGroup ?? "root") (socket.consumer_group)"
    }

    /// What to tell a peer that may not control.
    var refusal: String {
        controlGroup.map { "permission denied: needs root or group \($0) (socket.control_group)" }
            ?? "permission denied: needs root (set socket.control_group to allow a group)"
    }
}

/// How many more descriptors the daemon may open before it refuses clients: the camera, a config
/// reload and the outputs must still find one when clients have taken the rest.
enum DescriptorHeadroom {
    /// Descriptors kept free for everything but clients.
    static let reserve = 48

    /// Whether a client may be kept: the descriptors in use stay `reserve` below the limit.
    static func allowsClient() -> Bool {
        guard let limit = DescriptorTable.limit else { return true }
        return UInt64(DescriptorTable.inUse()) + UInt64(reserve) < limit
    }
}
