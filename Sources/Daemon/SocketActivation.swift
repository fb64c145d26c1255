#if canImport(Glibc)
    import Glibc
#endif

/// systemd socket activation without libsystemd: sd_listen_fds(3)'s protocol.
enum SocketActivation {
    /// The first passed descriptor (3) when `LISTEN_PID` names this process and `LISTEN_FDS` is at
    /// least 1. The variables are removed, so that child processes do not take them as theirs.
    static func listeningDescriptor() -> Int32? {
        guard let pid = getenv("LISTEN_PID").flatMap({ Int32(String(cString: $0)) }), pid == getpid(),
            let count = getenv("LISTEN_FDS").flatMap({ Int(String(cString: $0)) }), count >= 1
        else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        let descriptor: Int32 = 3
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }
}
