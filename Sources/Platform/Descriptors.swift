import Glibc
import SystemPackage

extension FileDescriptor {
    /// Whether the descriptor is a terminal (isatty).
    public var isTerminal: Bool { system_isatty(rawValue) == 1 }

    /// Sets close-on-exec as the descriptor's only flag (fcntl F_SETFD), for one inherited
    /// without it.
    public func setCloseOnExec() throws(Errno) {
        try Errno.checking { system_fcntl(rawValue, F_SETFD, FD_CLOEXEC) }
    }
}

/// This process's table of open descriptors: how large it may grow, how full it is.
public enum DescriptorTable {
    /// The soft limit on open descriptors (RLIMIT_NOFILE); nil when there is none, or it cannot be read.
    public static var limit: UInt64? {
        var limit = rlimit()
        guard system_getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Descriptors open now, counted in /proc/self/fd (the lowest free number is no count: closed
    /// descriptors leave holes below the highest). Without /proc, the lowest free number it is.
    public static func inUse() -> Int {
        guard let directory = system_opendir("/proc/self/fd") else {
            guard let probe = try? FileDescriptor.open("/dev/null", .readOnly, options: .closeOnExec) else { return Int.max / 2 }
            try? probe.close()
            return Int(probe.rawValue)
        }
        defer { _ = system_closedir(directory) }
        var count = -3  // ".", ".." and the directory's own descriptor
        while system_readdir(directory) != nil { count += 1 }
        return count
    }
}
