import Bridge
import Foundation
import ScannerTestSupport
import Testing

/// The bridge's on-disk spool: order, the byte bound, and what a restart finds.
@Suite struct SpoolTests {
    func directory() throws -> String {
        try TemporaryDirectory.shared.directory("spool") + "/spool"
    }

    @Test func messagesLeaveInOrderAndOnlyWhenTaken() throws {
        let path = try directory()
        let spool = try Spool(directory: path, limit: 1 << 20)
        for index in 1...5 { spool.append(topic: "t/scan", payload: Array("read \(index)".utf8)) }
        let first = spool.entries(after: nil, count: 3)
        #expect(first.map { String(decoding: $0.payload, as: UTF8.self) } == ["read 1", "read 2", "read 3"])
        #expect(spool.entries(after: first.last?.id, count: 10).count == 2)
        spool.remove(first[1].id)
        #expect(spool.counts.queued == 4 && spool.counts.sent == 1)
        #expect(spool.entries(after: nil, count: 10).map { String(decoding: $0.payload, as: UTF8.self) } == ["read 1", "read 3", "read 4", "read 5"])
    }

    @Test func aFullSpoolDropsTheOldestAndCountsThem() throws {
        let spool = try Spool(directory: try directory(), limit: 100)
        var dropped: [Spool.Entry] = []
        for index in 1...10 { dropped += spool.append(topic: "t", payload: Array("payload \(index) ......".utf8)) }
        let kept = spool.entries(after: nil, count: 100)
        #expect(!dropped.isEmpty && spool.counts.dropped == dropped.count)
        #expect(spool.counts.bytes <= 100 && spool.counts.queued == kept.count)
        #expect(dropped.first.map { String(decoding: $0.payload, as: UTF8.self) } == "payload 1 ......", "the oldest go first")
        #expect(kept.last.map { String(decoding: $0.payload, as: UTF8.self) } == "payload 10 ......", "the newest stays")
    }

    @Test func aRestartFindsWhatWasNotTakenInOrder() throws {
        let path = try directory()
        do {
            let spool = try Spool(directory: path, limit: 1 << 20)
            for index in 1...12 { spool.append(topic: "t/scan", payload: Array("read \(index)".utf8)) }
            spool.remove(spool.entries(after: nil, count: 1)[0].id)
        }
        let again = try Spool(directory: path, limit: 1 << 20)
        #expect(again.entries(after: nil, count: 100).map { String(decoding: $0.payload, as: UTF8.self) } == (2...12).map { "read \($0)" })
        #expect(again.entries(after: nil, count: 1).first?.topic == "t/scan")
        // New messages go after the old ones.
        again.append(topic: "t/scan", payload: Array("read 13".utf8))
        #expect(again.entries(after: nil, count: 100).last.map { String(decoding: $0.payload, as: UTF8.self) } == "read 13")
    }

    @Test func aSpoolThatCannotBeMadeIsAClearError() {
        #expect(throws: BridgeError.self) { try Spool(directory: "/proc/no-such/spool", limit: 1000) }
    }
}
