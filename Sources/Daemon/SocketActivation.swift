import Platform
import SystemPackage

/// systemd socket activation without libsystemd: sd_listen_fds(3)'s protocol.
enum SocketActivation {
    /// The first passed descriptor (3) when `LISTEN_PID` names this process and `LISTEN_FDS` is at
    /// least 1. The variables are removed, so that child processes do not take them as theirs.
    static func listeningDescriptor() -> Int32? {
        guard let pid = CurrentProcess.environment("LISTEN_PID").flatMap({ Int32($0) }), pid == CurrentProcess.id,
            let count = CurrentProcess.environment("LISTEN_FDS").flatMap({ Int($0) }), count >= 1
        else { return nil }
        CurrentProcess.removeEnvironment("LISTEN_PID")
        CurrentProcess.removeEnvironment("LISTEN_FDS")
        CurrentProcess.removeEnvironment("LISTEN_FDNAMES")
        let descriptor = FileDescriptor(rawValue: 3)
        try? descriptor.setCloseOnExec()
        return descriptor.rawValue
    }
}
