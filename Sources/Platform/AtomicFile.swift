import Glibc
import SystemPackage

/// Files replaced whole, never written through a name someone else could have planted: the daemon's
/// and the bridge's metrics textfiles, a recording's `index.json`, the bridge's spool entries.
///
/// The bytes go to a new file beside the target, created with `O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC`
/// under a name nobody can guess (pid and 64 random bits): a symlink or file planted at any
/// temporary name fails the create instead of being followed or truncated. The file is given its
/// mode, synced (unless `durable` is false), and renamed over the target in one step, so a reader
/// sees the old file or the new one, never half of one. A target that is itself a symlink is
/// replaced, not written through. On any failure the temporary file is removed and the target is
/// as it was.
public enum AtomicFile {
    /// Replaces the file at `path` with `bytes`, created with exactly `permissions` (whatever the
    /// umask). With `durable`, the file and then its directory are synced, so the new content
    /// survives a power cut once this returns.
    public static func write(
        _ bytes: some Collection<UInt8>, to path: String, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead],
        durable: Bool = true
    ) throws(Errno) {
        let (directoryPath, name) = split(path)
        let directory = try Errno.checking { system_open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = system_close(directory) }
        try write(bytes, named: name, in: directory, permissions: permissions, durable: durable)
    }

    /// Replaces the file `name` in the open directory `directory` with `bytes` (see above).
    public static func write(
        _ bytes: some Collection<UInt8>, named name: String, in directory: Int32, permissions: FilePermissions = [.ownerReadWrite],
        durable: Bool = true
    ) throws(Errno) {
        // The name is kept short enough that the temporary name fits in NAME_MAX (255).
        let temporary = ".\(name.utf8.count > 180 ? String(decoding: name.utf8.prefix(180), as: UTF8.self) : name).\(system_getpid()).\(randomHex()).tmp"
        let fd = try Errno.checking {
            system_openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions.rawValue))
        }
        do throws(Errno) {
            do throws(Errno) {
                try Errno.checking { system_fchmod(fd, mode_t(permissions.rawValue)) }
                try writeAll(Array(bytes), to: fd)
                if durable { try Errno.checking { system_fsync(fd) } }
            } catch {
                _ = system_close(fd)
                throw error
            }
            // Linux releases the descriptor even when close fails; a failure still means lost data.
            if system_close(fd) != 0 && errno != EINTR { throw Errno(rawValue: errno) }
            try Errno.checking { system_renameat(directory, temporary, directory, name) }
        } catch {
            _ = system_unlinkat(directory, temporary, 0)
            throw error
        }
        // The rename itself survives a power cut once the directory is synced.
        if durable { try Errno.checking { system_fsync(directory) } }
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Result { () throws(Errno) in try Errno.checking { system_write(fd, raw.baseAddress! + offset, raw.count - offset) } }
            }
            offset += try written.get()
        }
    }

    /// The directory part (`.` when there is none) and the last component of `path`.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func randomHex() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
