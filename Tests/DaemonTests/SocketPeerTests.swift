import Foundation
import ScannerTestSupport
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Who a connection's peer is, as the kernel says: the supplementary groups the consumer and control
/// groups are checked against come from SO_PEERGROUPS, not from a user database lookup.
@Suite struct SocketPeerTests {
    @Test(.enabled(if: geteuid() == 0, "setpriv sets a child's groups only as root"))
    func aPeersSupplementaryGroupsAreTheKernels() throws {
        let directory = try TemporaryDirectory.shared.directory("peer-groups")
        let path = directory + "/peer.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 1) == 0)

        // A peer with groups of its own: users (100) and nogroup (65534).
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        child.arguments = [
            "--groups", "100,65534", "python3", "-c",
            "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.recv(1)", path,
        ]
        try child.run()
        defer {
            child.terminate()
            child.waitUntilExit()
        }
        let connection = accept(listener, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        #expect(SocketPeer.peerGroups(of: connection).sorted() == [100, 65534])
    }
}
