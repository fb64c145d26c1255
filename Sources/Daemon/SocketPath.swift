#if canImport(Glibc)
import Glibc
#endif

/// The socket file: stale-file replacement, mode and group, removal at exit.
enum SocketPath {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Makes the directory, and removes a stale socket file; refuses when a live daemon answers
    /// on it or when the path is something other than a socket.
    static func prepare(_ path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty, access(directory, F_OK) != 0, mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw Failure(description: "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw Failure(description: "\(path) exists and is not a socket; remove it or choose another socket.path")
        }
        if isServed(path) {
            throw Failure(description: "\(path) is served by a running process (another kiosk-scanner?); stop it or choose another socket.path")
        }
        unlink(path)
    }

    /// Sets mode and group on the bound socket; returns its inode, to remove only our own file later.
    static func publish(_ path: String, mode: Int, group: String?) throws -> ino_t {
        if let group {
            guard let entry = getgrnam(group) else { throw Failure(description: "socket.group '\(group)' does not exist") }
            guard chown(path, uid_t.max, entry.pointee.gr_gid) == 0 else {
                throw Failure(description: "cannot give \(path) to group \(group): \(String(cString: strerror(errno)))")
            }
        }
        chmod(path, mode_t(mode))
        var status = stat()
        guard stat(path, &status) == 0 else { throw Failure(description: "\(path) vanished after bind") }
        return status.st_ino
    }

    /// Removes the socket file if it is still the one we bound.
    static func remove(_ path: String, ifInode inode: ino_t) {
        var status = stat()
        if lstat(path, &status) == 0, status.st_ino == inode { unlink(path) }
    }

    private static func isServed(_ path: String) -> Bool {
        let fd = UnixAddress.connect(path)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }
}
