#if canImport(Glibc)
    import Glibc
#endif

/// Waits for a device node to appear or change, with inotify on the nearest directory that
/// exists, instead of polling in a busy loop.
public enum DeviceWatcher {
    /// Returns when something changes at or around `path`, or after `timeoutMilliseconds`.
    /// Returns at once if `path` exists and `untilExists` is set.
    public static func wait(for path: String, untilExists: Bool, timeoutMilliseconds: Int32) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            usleep(UInt32(timeoutMilliseconds) * 1000)
            return
        }
        defer { close(fd) }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF)
        _ = inotify_add_watch(fd, nearestExistingDirectory(of: path), mask)
        if access(path, F_OK) == 0 {
            // Watch the node too, for permission changes udev makes after creating it.
            _ = inotify_add_watch(fd, path, UInt32(IN_ATTRIB | IN_DELETE_SELF))
            if untilExists { return }
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, timeoutMilliseconds)
    }

    /// The directory holding `path`, or its closest ancestor that exists (for /dev/v4l/by-id
    /// before the first camera is plugged in).
    static func nearestExistingDirectory(of path: String) -> String {
        var directory = path
        repeat {
            if let slash = directory.lastIndex(of: "/") {
                directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
            } else {
                return "."
            }
        } while directory != "/" && access(directory, F_OK) != 0
        return directory
    }
}
