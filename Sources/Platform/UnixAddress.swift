import Glibc
import SystemPackage

/// A UNIX socket address, built once for the socket probe, the notify datagrams and `listen`.
public enum UnixAddress {
    /// Calls `body` with `path` as a sockaddr_un; nil when the path does not fit. A leading `@`
    /// names the abstract namespace, as systemd's NOTIFY_SOCKET may.
    public static func with<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1))
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    /// A stream socket connected to `path`; ENAMETOOLONG when the path does not fit.
    public static func connect(_ path: String) throws(Errno) -> FileDescriptor {
        let fd = FileDescriptor(rawValue: try Errno.checking { system_socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) })
        // Not made again on EINTR: the connection goes on in the background, and a second connect
        // would fail with EALREADY.
        let connected =
            with(path) { address, length in
                Result { () throws(Errno) in try Errno.checking(retryOnInterrupt: false) { system_connect(fd.rawValue, address, length) } }
            } ?? .failure(.fileNameTooLong)
        do throws(Errno) {
            _ = try connected.get()
        } catch {
            try? fd.close()
            throw error
        }
        return fd
    }

    /// Sends `message` as one datagram to the socket at `path`, from a socket of its own that is
    /// closed again (sd_notify's way). A peer gone away is an error, never SIGPIPE.
    public static func send(datagram message: String, to path: String) throws(Errno) {
        let fd = FileDescriptor(rawValue: try Errno.checking { system_socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) })
        defer { try? fd.close() }
        let bytes = Array(message.utf8)
        let sent =
            with(path) { address, length in
                bytes.withUnsafeBytes { raw in
                    Result { () throws(Errno) in
                        try Errno.checking { system_sendto(fd.rawValue, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), address, length) }
                    }
                }
            } ?? .failure(.fileNameTooLong)
        _ = try sent.get()
    }
}
