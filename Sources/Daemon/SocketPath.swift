import Codes
import Platform
import SystemPackage

/// The socket file: stale-file replacement, mode and group, removal at exit.
enum SocketPath {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Makes the directory, and removes a stale socket file; refuses when a live daemon answers
    /// on it or when the path is something other than a socket.
    static func prepare(_ path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty, !FileSystem.exists(directory) {
            do throws(Errno) {
                try FileSystem.makeDirectory(directory, permissions: FilePermissions(rawValue: 0o755))
            } catch {
                // Made meanwhile by someone else: as good.
                if error != .fileExists { throw Failure(description: "cannot create \(directory): \(error.description)") }
            }
        }
        guard let status = try? FilePath(path).stat(followTargetSymlink: false) else { return }
        guard status.type == .socket else {
            throw Failure(description: "\(path) exists and is not a socket; remove it or choose another socket.path")
        }
        if isServed(path) {
            throw Failure(description: "\(path) is served by a running process (another kiosk-scanner?); stop it or choose another socket.path")
        }
        try? FileSystem.remove(path)
    }

    /// Sets mode and group on the bound socket. Returns its inode (to remove only our own file
    /// later) and what could not be applied, if anything.
    static func publish(_ path: String, mode: Int, group: String?) -> (inode: Inode?, problem: String?) {
        var problem: String?
        if let group {
            if let id = GroupDatabase.id(named: group) {
                do throws(Errno) {
                    try FileSystem.setGroup(of: path, to: id)
                } catch {
                    problem = "cannot give \(path) to group \(group): \(error.description) (is the daemon's user in that group?)"
                }
            } else {
                problem = "socket.group '\(group)' does not exist"
            }
        }
        do throws(Errno) {
            try FileSystem.setPermissions(of: path, to: FilePermissions(rawValue: CInterop.Mode(mode)))
        } catch {
            problem = problem ?? "cannot set the mode of \(path): \(error.description)"
        }
        return ((try? FilePath(path).stat())?.inode, problem)
    }

    /// A name beside `path` for binding before the socket is published (short: socket paths are limited to 107 bytes).
    static func stagingPath(for path: String) -> String {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return "\(directory)/.ks\(CurrentProcess.id)"
    }

    /// Removes the socket file if it is still the one we bound.
    static func remove(_ path: String, ifInode inode: Inode) {
        if (try? FilePath(path).stat(followTargetSymlink: false))?.inode == inode { try? FileSystem.remove(path) }
    }

    private static func isServed(_ path: String) -> Bool {
        guard let fd = try? UnixAddress.connect(path) else { return false }
        try? fd.close()
        return true
    }
}
