import Foundation
import Platform
import SystemPackage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Platform's typed wrappers: the kernel's answers arrive as values, its refusals as `Errno`.
@Suite struct SystemCallTests {
    @Test func namesAreMadeRenamedAndRemoved() throws {
        let made = try scratchDirectory("system-calls") + "/made"
        try FileSystem.makeDirectory(made, permissions: [.ownerReadWriteExecute])
        #expect(FileSystem.exists(made))
        #expect(throws: Errno.fileExists) { try FileSystem.makeDirectory(made, permissions: [.ownerReadWriteExecute]) }
        #expect(FileManager.default.createFile(atPath: "\(made)/a", contents: Data("a".utf8)))
        try FileSystem.setPermissions(of: "\(made)/a", to: [.ownerRead, .groupRead])
        #expect(try FilePath("\(made)/a").stat().permissions == [.ownerRead, .groupRead])
        try FileSystem.rename("\(made)/a", to: "\(made)/b")
        #expect(!FileSystem.exists("\(made)/a") && FileSystem.exists("\(made)/b"))
        let folder = try FileDescriptor.open(made, .readOnly, options: [.directory, .closeOnExec])
        defer { try? folder.close() }
        try FileSystem.remove("b", in: folder)
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileSystem.remove("\(made)/b") }
        #expect(try FileSystem.availableBytes(at: made) > 0)
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileSystem.availableBytes(at: "\(made)/b") }
    }

    @Test func aConnectionThatCannotBeMadeSaysWhy() throws {
        let directory = try scratchDirectory("system-calls")
        #expect(throws: Errno.noSuchFileOrDirectory) { try UnixAddress.connect("\(directory)/nobody.sock") }
        #expect(throws: Errno.fileNameTooLong) { try UnixAddress.connect("/" + String(repeating: "x", count: 200)) }
    }

    /// A connected pair: the peer is this process, and the unread count follows what was read.
    @Test func aSocketsPeerAndItsUnreadBytes() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let (near, far) = (FileDescriptor(rawValue: pair[0]), FileDescriptor(rawValue: pair[1]))
        defer {
            try? near.close()
            try? far.close()
        }
        let peer = try near.peerCredentials()
        #expect(peer.pid == getpid() && peer.user.rawValue == getuid() && peer.group.rawValue == getgid())
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        #expect(getgroups(Int32(groups.count), &groups) == groups.count)
        #expect(try Set(near.peerGroups().map(\.rawValue)) == Set(groups), "this process's supplementary groups")
        #expect(try near.unreadByPeer() == 0)
        try near.writeAll("line\n".utf8)
        #expect(try near.unreadByPeer() > 0)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try far.read(into: $0) } == 5)
        #expect(try near.unreadByPeer() == 0)
        #expect(try near.takeError() == nil)
        try far.setReceiveTimeout(seconds: 0.05)
        #expect(throws: Errno.wouldBlock) { try buffer.withUnsafeMutableBytes { try far.read(into: $0) } }
        try near.shutdown()
        #expect(try buffer.withUnsafeMutableBytes { try far.read(into: $0) } == 0, "end of stream")
    }

    @Test func aByteIsFoundFromAnOffset() {
        let bytes: [UInt8] = Array("ab\"cd\"".utf8)
        bytes.withUnsafeBytes { raw in
            #expect(raw.firstIndex(of: UInt8(ascii: "\""), from: 0) == 2)
            #expect(raw.firstIndex(of: UInt8(ascii: "\""), from: 3) == 5)
            #expect(raw.firstIndex(of: UInt8(ascii: "x"), from: 0) == nil)
            #expect(raw.firstIndex(of: UInt8(ascii: "a"), from: 6) == nil)
        }
    }

    @Test func theEnvironmentIsReadAndCleared() {
        let name = "KIOSK_SCANNER_TEST_\(getpid())"
        setenv(name, "value", 1)
        #expect(CurrentProcess.environment(name) == "value")
        CurrentProcess.removeEnvironment(name)
        #expect(CurrentProcess.environment(name) == nil)
        #expect(CurrentProcess.id == getpid())
    }
}
