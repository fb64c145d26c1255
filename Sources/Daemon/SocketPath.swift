import Codes
import Platform
import SystemPackage

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
            throw Failure(description: "cannot create \(directory): \(Errno(rawValue: errno).description)")
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

    /// Sets mode and group on the bound socket. Returns its inode (to remove only our own file
    /// later) and what could not be applied, if anything.
    static func publish(_ path: String, mode: Int, group: String?) -> (inode: ino_t?, problem: String?) {
        var problem: String?
        if let group {
            if let entry = getgrnam(group) {
                if chown(path, uid_t.max, entry.pointee.gr_gid) != 0 {
                    problem = "cannot give \(path) to group \(group): \(Errno(rawValue: errno).description) (is the daemon's user in that group?)"
                }
            } else {
                problem = "socket.group '\(group)' does not exist"
            }
        }
        if chmod(path, mode_t(mode)) != 0 { problem = problem ?? "cannot set the mode of \(path): \(Errno(rawValue: errno).description)" }
        var status = stat()
        return (stat(path, &status) == 0 ? status.st_ino : nil, problem)
    }

    /// A name beside `path` for binding before the socket is published (short: socket paths are limited to 107 bytes).
    static func stagingPath(for path: String) -> String {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return "\(directory)/.ks\(getpid())"
    }

    /// Removes the socket file if it is still the one we bound.
    static func remove(_ path: String, ifInode inode: ino_t) {
        var status = stat()
        if lstat(path, &status) == 0, status.st_ino == inode { unlink(path) }
    }

    private static func isServed(_ path: String) -> Bool {
        guard let fd = try? UnixAddress.connect(path) else { return false }
        try? fd.close()
        return true
    }
}
