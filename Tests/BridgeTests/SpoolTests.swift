import Bridge
import Foundation
import ScannerTestSupport
import Testing

/// The bridge's on-disk spool: order, the byte bound, and what a restart finds.
@Suite struct SpoolTests {
    static let topic = "kiosk-scanner/lane/scan"

    func directory() throws -> String {
        try TemporaryDirectory.shared.directory("spool") + "/spool"
    }

    /// A scan event as the bridge spools it.
    static func scan(_ seq: Int) -> [UInt8] {
        Array(#"{"boot_id":"b","device":"lane","seq":\#(seq),"text":"read \#(seq)","type":"scan"}"#.utf8)
    }

    static func texts(_ entries: [Spool.Entry]) -> [String] {
        entries.map { entry in
            let object = try? JSONSerialization.jsonObject(with: Data(entry.payload)) as? [String: Any]
            return object?["text"] as? String ?? "?"
        }
    }

    @Test func messagesLeaveInOrderAndOnlyWhenTaken() throws {
        let spool = try Spool(directory: try directory(), limit: 1 << 20, scanTopic: Self.topic)
        for index in 1...5 { spool.append(payload: Self.scan(index)) }
        let first = spool.entries(after: nil, count: 3)
        #expect(Self.texts(first) == ["read 1", "read 2", "read 3"])
        #expect(spool.entries(after: first.last?.id, count: 10).count == 2)
        spool.remove(first[1].id)
        #expect(spool.counts.queued == 4 && spool.counts.sent == 1)
        #expect(Self.texts(spool.entries(after: nil, count: 10)) == ["read 1", "read 3", "read 4", "read 5"])
    }

    @Test func aFullSpoolDropsTheOldestAndCountsThem() throws {
        let spool = try Spool(directory: try directory(), limit: 200, scanTopic: Self.topic)
        var dropped: [Spool.Entry] = []
        for index in 1...10 { dropped += spool.append(payload: Self.scan(index)).dropped }
        let kept = spool.entries(after: nil, count: 100)
        #expect(!dropped.isEmpty && spool.counts.dropped == dropped.count)
        #expect(spool.counts.bytes <= 200 && spool.counts.queued == kept.count)
        #expect(Self.texts(Array(dropped.prefix(1))) == ["read 1"], "the oldest go first")
        #expect(Self.texts(Array(kept.suffix(1))) == ["read 10"], "the newest stays")
    }

    @Test func aRestartFindsWhatWasNotTakenInOrder() throws {
        let path = try directory()
        do {
            let spool = try Spool(directory: path, limit: 1 << 20, scanTopic: Self.topic)
            for index in 1...12 { #expect(spool.append(payload: Self.scan(index)).stored) }
            spool.remove(spool.entries(after: nil, count: 1)[0].id)
        }
        let again = try Spool(directory: path, limit: 1 << 20, scanTopic: Self.topic)
        #expect(Self.texts(again.entries(after: nil, count: 100)) == (2...12).map { "read \($0)" })
        #expect(again.counts.quarantined == 0)
        // New messages go after the old ones.
        again.append(payload: Self.scan(13))
        #expect(Self.texts(again.entries(after: nil, count: 100)).last == "read 13")
    }

    /// A spool found over its bound (left under a larger spool_size, or planted) is cut to it at
    /// start as `append` would: the newest kept, the oldest removed and counted, one warning.
    @Test func aSpoolOverItsBoundAtStartKeepsOnlyTheNewest() throws {
        let path = try directory()
        do {
            let spool = try Spool(directory: path, limit: 1 << 20, scanTopic: Self.topic)
            for index in 1...50 { #expect(spool.append(payload: Self.scan(index)).stored) }
        }
        let log = RecordedLog()
        let limit = 1000
        let again = try Spool(directory: path, limit: limit, scanTopic: Self.topic, logger: log.logger)
        let kept = again.entries(after: nil, count: 100)
        #expect(again.counts.bytes <= limit && again.counts.bytes == kept.reduce(0) { $0 + $1.payload.count })
        #expect(kept.count > 1 && Self.texts(kept) == ((51 - kept.count)...50).map { "read \($0)" }, "\(Self.texts(kept))")
        #expect(again.counts.dropped == 50 - kept.count && again.counts.queued == kept.count)
        #expect(log.all.filter { $0.contains("oldest reads dropped") }.count == 1, "\(log.all)")
        // The dropped are gone from the disk too: the next start finds only those kept.
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).count == kept.count)
        again.append(payload: Self.scan(51))
        let third = try Spool(directory: path, limit: limit, scanTopic: Self.topic)
        #expect(Self.texts(third.entries(after: nil, count: 100)).last == "read 51")
    }

    @Test func aSpoolThatCannotBeMadeIsAClearError() {
        #expect(throws: BridgeError.self) { try Spool(directory: "/proc/no-such/spool", limit: 1000, scanTopic: Self.topic) }
    }

    /// `kiosk-scanner mqtt` run by hand: the default spool's parents do not exist yet.
    @Test func missingParentsAreMadePrivate() throws {
        let path = try TemporaryDirectory.shared.directory("spool-parents") + "/var/lib/kiosk-scanner/mqtt-spool"
        _ = try Spool(directory: path, limit: 1000, scanTopic: Self.topic)
        for made in [path, (path as NSString).deletingLastPathComponent] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: made)[.posixPermissions] as? Int)
            #expect(mode == 0o700, "\(made): \(String(mode, radix: 8))")
        }
    }

    @Test func aSpoolOthersMayWriteIsRefused() throws {
        let open = try directory()
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(open, 0o770)
        let writable = #expect(throws: BridgeError.self) { try Spool(directory: open, limit: 1000, scanTopic: Self.topic) }
        #expect(writable?.description.contains("writable by its group or others (mode 770)") == true, "\(String(describing: writable))")
    }

    /// Only root can give a directory to another user.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func aSpoolAnotherUserOwnsIsRefused() throws {
        let foreign = try directory()
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chown(foreign, 65534, 65534)
        let owned = #expect(throws: BridgeError.self) { try Spool(directory: foreign, limit: 1000, scanTopic: Self.topic) }
        #expect(owned?.description.contains("belongs to uid 65534") == true, "\(String(describing: owned))")
    }
}
