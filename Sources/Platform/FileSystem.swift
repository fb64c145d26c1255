import Glibc
import SystemPackage

/// The file system calls swift-system leaves out (it has open, read, write and stat): making,
/// removing and renaming names, their mode and group, and free space. Errors arrive as `Errno`.
/// Calls that may have done their work before a signal came (mkdir, unlink, rename) are not made
/// again on EINTR; the others are.
public enum FileSystem {
    /// Whether `path` names anything (access(F_OK), following symlinks).
    public static func exists(_ path: String) -> Bool {
        (try? Errno.checking { system_access(path, F_OK) }) != nil
    }

    /// Whether this process may execute `path` (access(X_OK)).
    public static func isExecutable(_ path: String) -> Bool {
        (try? Errno.checking { system_access(path, X_OK) }) != nil
    }

    /// Makes the directory `path` (not its parents), with `permissions` less the umask.
    public static func makeDirectory(_ path: String, permissions: FilePermissions) throws(Errno) {
        try Errno.checking(retryOnInterrupt: false) { system_mkdir(path, permissions.rawValue) }
    }

    /// Removes the name `path` (unlink: not a directory).
    public static func remove(_ path: String) throws(Errno) {
        try Errno.checking(retryOnInterrupt: false) { system_unlink(path) }
    }

    /// Removes the name `name` in the open directory `directory` (unlinkat: not a directory).
    public static func remove(_ name: String, in directory: FileDescriptor) throws(Errno) {
        try Errno.checking(retryOnInterrupt: false) { system_unlinkat(directory.rawValue, name, 0) }
    }

    /// Renames `path` to `newPath` in one step, replacing what was there.
    public static func rename(_ path: String, to newPath: String) throws(Errno) {
        try Errno.checking(retryOnInterrupt: false) { system_rename(path, newPath) }
    }

    /// Sets the permission bits of `path` (chmod).
    public static func setPermissions(of path: String, to permissions: FilePermissions) throws(Errno) {
        try Errno.checking { system_chmod(path, permissions.rawValue) }
    }

    /// Gives `path` to the group `group`, keeping its owner (chown).
    public static func setGroup(of path: String, to group: GroupID) throws(Errno) {
        try Errno.checking { system_chown(path, uid_t.max, group.rawValue) }
    }

    /// The bytes an unprivileged user may still write on the file system that holds `path`
    /// (statvfs: free blocks for non-root times the fragment size).
    public static func availableBytes(at path: String) throws(Errno) -> Int64 {
        var info = statvfs()
        try Errno.checking { system_statvfs(path, &info) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}

/// The group database (/etc/group, or whatever NSS is configured to ask).
public enum GroupDatabase {
    /// The id of the group `name`; nil when there is no such group.
    public static func id(named name: String) -> GroupID? {
        system_getgrnam(name).map { GroupID(rawValue: $0.pointee.gr_gid) }
    }
}
