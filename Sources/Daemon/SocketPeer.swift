import Glibc
import Logging
import NIOCore

/// Who is at the other end of a connection: the kernel's SO_PEERCRED and SO_PEERGROUPS, taken at
/// connect time.
struct SocketPeer: Sendable, CustomStringConvertible {
    let uid: uid_t
    let gid: gid_t
    let pid: pid_t
    /// Its supplementary groups, as the kernel had them when it connected.
    var groups: [gid_t] = []

    /// The peer of `channel`, or nil when the kernel does not say (not a UNIX socket).
    static func of(_ channel: any Channel) -> SocketPeer? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        // On the channel's event loop the option is read at once and the future is already complete.
        var credentials: Credentials?
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            .assumeIsolated().whenSuccess { (value: Credentials) in credentials = value }
        guard let credentials else { return nil }
        let groups = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) { peerGroups(of: $0) }
        return SocketPeer(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid, groups: groups ?? [])
    }

    /// The supplementary groups of the peer of the UNIX socket `fd` (SO_PEERGROUPS): the kernel's
    /// own record, so no user database is asked, and nothing can block the event loop.
    static func peerGroups(of fd: Int32) -> [gid_t] {
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var size = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            if getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, &groups, &size) == 0 {
                return Array(groups.prefix(Int(size) / MemoryLayout<gid_t>.size))
            }
            // ERANGE: the size it needs is in `size`.
            guard errno == ERANGE, Int(size) / MemoryLayout<gid_t>.size > groups.count else { return [] }
            groups = [gid_t](repeating: 0, count: Int(size) / MemoryLayout<gid_t>.size)
        }
    }

    var description: String { "uid \(uid), pid \(pid)" }

    /// `struct ucred` (socket(7)), which Glibc's module leaves out (it needs _GNU_SOURCE).
    private struct Credentials: Sendable {
        var pid: pid_t
        var uid: uid_t
        var gid: gid_t
    }
}

/// What a connection may do (docs/socket-protocol.md: who may do what). `status` and `metrics` are
/// for anyone who can open the socket; taking reads for root and the members of
/// `socket.consumer_group` (anyone, when it is not set); control commands and camera images for
/// root and the members of `socket.control_group`.
struct SocketAccess: Sendable {
    /// The control group's id, when one is configured and exists.
    let controlGID: gid_t?
    let controlGroup: String?
    /// The consumer group's id, when one is configured and exists.
    let consumerGID: gid_t?
    let consumerGroup: String?

    init(controlGroup: String?, consumerGroup: String?, logger: Logger) {
        self.controlGroup = controlGroup
        self.consumerGroup = consumerGroup
        controlGID = Self.groupID(controlGroup, key: "socket.control_group", who: "only root may control the scanner", logger: logger)
        consumerGID = Self.groupID(consumerGroup, key: "socket.consumer_group", who: "only root may take reads", logger: logger)
    }

    private static func groupID(_ name: String?, key: String, who: String, logger: Logger) -> gid_t? {
        guard let name else { return nil }
        if let group = getgrnam(name) { return group.pointee.gr_gid }
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
    private static func isMember(_ peer: SocketPeer?, of gid: gid_t?) -> Bool {
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
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return true }
        return rlim_t(inUse()) + rlim_t(reserve) < limit.rlim_cur
    }

    /// Descriptors open now, counted in /proc/self/fd (the lowest free number is no count: closed
    /// descriptors leave holes below the highest). Without /proc, the lowest free number it is.
    private static func inUse() -> Int {
        guard let directory = opendir("/proc/self/fd") else {
            let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if probe >= 0 { close(probe) }
            return probe >= 0 ? Int(probe) : Int.max / 2
        }
        defer { closedir(directory) }
        var count = -3  // ".", ".." and the directory's own descriptor
        while readdir(directory) != nil { count += 1 }
        return count
    }
}
