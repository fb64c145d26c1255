import Bridge
import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a spool directory can hold that the bridge did not write: each is moved to `quarantine/`,
/// counted, and leaves the reads of the bridge's own to go out as before.
@Suite struct SpoolHardeningTests {
    let path: String

    init() throws {
        path = try TemporaryDirectory.shared.directory("spool-attacks") + "/spool"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func plant(_ name: String, _ text: String) throws {
        try text.write(toFile: "\(path)/\(name)", atomically: false, encoding: .utf8)
    }

    static func entryName(_ id: UInt64, _ suffix: String = "scan") -> String {
        let digits = String(id)
        return String(repeating: "0", count: 20 - digits.count) + digits + "." + suffix
    }

    func quarantined() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(path)/quarantine")) ?? []).sorted()
    }

    func open(_ topic: String = SpoolTests.topic) throws -> Spool {
        try Spool(directory: path, limit: 1 << 20, scanTopic: topic)
    }

    @Test func badEntriesAreSetAsideAndTheGoodOnesKept() throws {
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let good = String(decoding: SpoolTests.scan(1), as: UTF8.self)
        try plant(Self.entryName(1), good)
        // The attacks of issue #33, each under a name that is otherwise an entry's.
        symlink("/etc/passwd", "\(path)/\(Self.entryName(2))")
        symlink("/dev/zero", "\(path)/\(Self.entryName(3))")
        mkfifo("\(path)/\(Self.entryName(4))", 0o600)
        try plant("18446744073709551615.msg", "\(SpoolTests.topic)\n\(good)")
        try plant("0000000000000000000000000005.scan", good)
        try plant(Self.entryName(6, "msg"), "kiosk-scanner/#\n\(good)")
        try plant(Self.entryName(7, "msg"), "elsewhere/lane/scan\n\(good)")
        try plant(Self.entryName(8), "root:x:0:0:root:/root:/bin/bash\n")
        try plant(Self.entryName(9), String(repeating: "x", count: Spool.entryLimit + 1))
        try plant(Self.entryName(10), good)
        link("\(path)/\(Self.entryName(10))", "\(path)/\(Self.entryName(11))")
        try FileManager.default.createDirectory(atPath: "\(path)/\(Self.entryName(12))", withIntermediateDirectories: false)
        try plant("notes.txt", "hello")
        // Of the older format, for this scanner's own topic: taken over.
        try plant(Self.entryName(13, "msg"), "\(SpoolTests.topic)\n" + String(decoding: SpoolTests.scan(13), as: UTF8.self))
        // A temporary file a crash left: removed.
        try plant(".\(Self.entryName(14)).123.abc.tmp", good)

        let spool = try open()
        #expect(SpoolTests.texts(spool.entries(after: nil, count: 100)) == ["read 1", "read 13"])
        #expect(spool.counts.queued == 2)
        let aside = quarantined()
        #expect(spool.counts.quarantined == 13 && aside.count == 13, "\(aside)")
        for name in [2, 3, 4, 6, 7, 8, 9, 10, 11, 12].map({ Self.entryName(UInt64($0), [6, 7].contains($0) ? "msg" : "scan") })
            + ["18446744073709551615.msg", "0000000000000000000000000005.scan", "notes.txt"]
        {
            #expect(aside.contains { $0.hasSuffix("-" + name) }, "\(name) in \(aside)")
        }
        #expect(try String(contentsOfFile: "/etc/passwd", encoding: .utf8) == passwd, "a symlink is moved, its target untouched")
        let left = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        #expect(left == [Self.entryName(1), Self.entryName(13), "quarantine"], "the old entry rewritten, the temporary file gone: \(left)")

        // Delivery goes on: a new read after the old, and the next start finds nothing more to set aside.
        #expect(spool.append(payload: SpoolTests.scan(15)).stored)
        for entry in spool.entries(after: nil, count: 2) { spool.remove(entry.id) }
        let again = try open()
        #expect(SpoolTests.texts(again.entries(after: nil, count: 100)) == ["read 15"])
        #expect(again.counts.quarantined == 0 && quarantined().count == 13)
    }

    /// The largest id there can be: its read, and those after it, survive restarts in order,
    /// though counting on from it would leave the range (they are renumbered from 1).
    @Test func theHighestIdAllowedStillCountsOn() throws {
        let highest = UInt64(1) << 62
        try plant(Self.entryName(highest - 1), String(decoding: SpoolTests.scan(1), as: UTF8.self))
        try plant(Self.entryName(highest), String(decoding: SpoolTests.scan(2), as: UTF8.self))
        try plant(Self.entryName(highest + 1), String(decoding: SpoolTests.scan(0), as: UTF8.self))
        let spool = try open()
        #expect(spool.counts.queued == 2 && spool.counts.quarantined == 1)
        #expect(spool.append(payload: SpoolTests.scan(3)).stored)
        #expect(SpoolTests.texts(spool.entries(after: nil, count: 10)) == ["read 1", "read 2", "read 3"])
        let again = try open()
        #expect(SpoolTests.texts(again.entries(after: nil, count: 10)) == ["read 1", "read 2", "read 3"])
        #expect(again.counts.quarantined == 0)
        #expect(again.append(payload: SpoolTests.scan(4)).stored)
        let ids = again.entries(after: nil, count: 10).map(\.id)
        #expect(ids == ids.sorted() && ids.allSatisfy { $0 < highest / 2 }, "\(ids)")
    }

    /// A symlink planted as `quarantine` is not followed: bad entries are skipped instead.
    @Test func aPlantedQuarantineSymlinkIsNotFollowed() throws {
        let elsewhere = try TemporaryDirectory.shared.directory("elsewhere")
        symlink(elsewhere, "\(path)/quarantine")
        try plant(Self.entryName(1), "not json")
        let spool = try open()
        // The symlink itself counts as a bad entry; neither can be moved, both are skipped.
        #expect(spool.counts.quarantined == 2 && spool.counts.queued == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }
}
