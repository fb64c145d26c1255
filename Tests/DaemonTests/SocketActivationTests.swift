import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Socket activation: the daemon serves the listening socket passed as fd 3 (LISTEN_FDS), as
/// kiosk-scanner.socket would, and leaves the file to its owner.
@Suite struct SocketActivationTests {
    @Test func daemonServesThePassedSocketAndLeavesItsFile() throws {
        let directory = try TemporaryDirectory.shared.directory("activation")
        let activated = "\(directory)/activated.sock"
        let configured = "\(directory)/configured.sock"
        let config = "\(directory)/k.conf"
        let log = "\(directory)/daemon.log"
        try Fixtures.config(device: "replay:\(try Fixtures.replayDirectory(codes: ["activated"]))")
            .write(toFile: config, atomically: true, encoding: .utf8)

        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(activated.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listening, 16) == 0)

        // As systemd does: the socket as fd 3, LISTEN_PID set to the daemon's own pid (the shell's, before exec).
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, listening, 3)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let script = "LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" run --config \"$1\" --socket \"$2\" --log-level debug"
        let arguments = ["/bin/sh", "-c", script, Tool.scannerBinary, config, configured]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ) == 0)
        close(listening)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }

        let client = try #require(SocketClient(path: activated))
        #expect(client.waitForScan("activated").match != nil)
        #expect(!FileManager.default.fileExists(atPath: configured), "the configured path is not bound when a socket is passed")
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0)
        #expect(FileManager.default.fileExists(atPath: activated), "the passed socket's file belongs to systemd")
        #expect(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("listening on the socket systemd passed (fd 3)"))
    }
}
