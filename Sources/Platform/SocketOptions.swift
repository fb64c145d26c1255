import Glibc
import SystemPackage

/// Who is at the other end of a UNIX socket, as the kernel recorded it when the peer connected.
public struct PeerCredentials: Sendable, Equatable {
    public let pid: Int32
    public let user: UserID
    public let group: GroupID
}

/// The socket calls swift-system leaves out, on a descriptor that is a (UNIX) socket. Errors
/// arrive as `Errno`; option reads and writes are made again on EINTR.
extension FileDescriptor {
    /// The peer's process, user and group (SO_PEERCRED).
    public func peerCredentials() throws(Errno) -> PeerCredentials {
        // `struct ucred`, which Glibc's module leaves out (it needs _GNU_SOURCE).
        struct Credentials {
            var pid: Int32 = 0
            var uid: UInt32 = 0
            var gid: UInt32 = 0
        }
        var credentials = Credentials()
        var size = socklen_t(MemoryLayout<Credentials>.size)
        try Errno.checking { system_getsockopt(rawValue, SOL_SOCKET, SO_PEERCRED, &credentials, &size) }
        return PeerCredentials(pid: credentials.pid, user: UserID(rawValue: credentials.uid), group: GroupID(rawValue: credentials.gid))
    }

    /// The peer's supplementary groups (SO_PEERGROUPS): the kernel's own record, so no user
    /// database is asked, and nothing can block.
    public func peerGroups() throws(Errno) -> [GroupID] {
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var size = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            do throws(Errno) {
                try Errno.checking { system_getsockopt(rawValue, SOL_SOCKET, SO_PEERGROUPS, &groups, &size) }
                return groups.prefix(Int(size) / MemoryLayout<gid_t>.size).map { GroupID(rawValue: $0) }
            } catch let error where error == .outOfRange && Int(size) / MemoryLayout<gid_t>.size > groups.count {
                // ERANGE: the size it needs is in `size`.
                groups = [gid_t](repeating: 0, count: Int(size) / MemoryLayout<gid_t>.size)
            }
        }
    }

    /// For a UNIX stream socket, the buffer space of the writes the peer has not read to their
    /// end (ioctl SIOCOUTQ; each write its own buffer, freed once read whole); 0 when it has read
    /// everything.
    public func unreadByPeer() throws(Errno) -> Int {
        Int(try Errno.checking { system_socket_unread(rawValue) })
    }

    /// The socket's pending error, which reading it clears (SO_ERROR); nil when there is none.
    public func takeError() throws(Errno) -> Errno? {
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        try Errno.checking { system_getsockopt(rawValue, SOL_SOCKET, SO_ERROR, &error, &size) }
        return error == 0 ? nil : Errno(rawValue: error)
    }

    /// Makes a blocking read give up with EAGAIN after `seconds` without data (SO_RCVTIMEO).
    public func setReceiveTimeout(seconds: Double) throws(Errno) {
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        try Errno.checking { system_setsockopt(rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size)) }
    }

    /// Ends the connection both ways (SHUT_RDWR), waking a thread blocked reading it.
    public func shutdown() throws(Errno) {
        try Errno.checking { system_shutdown(rawValue, Int32(SHUT_RDWR)) }
    }
}
