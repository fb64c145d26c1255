import Imaging
import Platform
import ScannerProtocol
import Testing

@testable import Console

/// Health samples: rates over the interval between two polls, and one hour kept.
@Suite struct HealthHistoryTests {
    static func status(reads: Int, dropped: Int = 0, decoded: Int = 0, gated: Int = 0, histogram: [Int]? = nil) -> StatusSnapshot {
        var counters = CounterSnapshot()
        counters.reads = reads
        counters.dropped = dropped > 0 ? ["no-client": dropped] : [:]
        counters.framesDecoded = decoded
        counters.framesGated = gated
        if let histogram { counters.decodeHistogram = histogram }
        let state = StateEvent(
            camera: "streaming", device: "/dev/video0", detail: nil, format: nil, torch: false, torchMode: .auto, mode: .presentation, paused: false,
            scanning: true)
        return StatusSnapshot(state: state, counters: counters, watchers: 1)
    }

    @Test func ratesAreOverTheIntervalSinceThePollBefore() {
        var history = HealthHistory(span: .seconds(3600), interval: .seconds(5))
        let origin = Instant(seconds: 100)
        var buckets = [Int](repeating: 0, count: CounterSnapshot.decodeBuckets.count + 1)
        buckets[1] = 1000
        let first = history.add(Self.status(reads: 10, histogram: buckets), at: Instant(seconds: 100), origin: origin)
        #expect(first.readsPerMinute == nil && first.decodeMsP50 == nil && first.at == 0, "no interval yet")
        // The next 30 s: 5 reads, 2 drops, 100 frames decoded (all in the 5 ms bucket), 300 gated.
        buckets[3] += 100
        let second = history.add(
            Self.status(reads: 15, dropped: 2, decoded: 100, gated: 300, histogram: buckets), at: Instant(seconds: 130), origin: origin)
        #expect(second.readsPerMinute == 10 && second.droppedPerMinute == 4 && second.gatedPercent == 75)
        #expect(second.decodeMsP50 == 5 && second.decodeMsP99 == 5, "the interval's decodes, not those since the daemon started")
        #expect(second.at == 30 && second.camera == "streaming" && second.watchers == 1 && second.dropped == ["no-client": 2])
        // A daemon that started again: its counters went down, so no rates across it.
        let third = history.add(Self.status(reads: 1), at: Instant(seconds: 160), origin: origin)
        #expect(third.readsPerMinute == nil && history.samples.count == 3)
    }

    @Test func keepsTheLastHour() {
        var history = HealthHistory(span: .seconds(3600), interval: .seconds(5))
        for index in 0..<800 { _ = history.add(Self.status(reads: index), at: Instant(seconds: Double(index) * 5), origin: Instant(seconds: 0)) }
        #expect(history.capacity == 720 && history.samples.count == 720 && history.samples.first?.at == 80 * 5)
    }

    @Test func aStatusReplyIsRead() throws {
        let line =
            #"{"type":"reply","command":"status","ok":true,"status":{"state":{"type":"state","camera":"busy","device":"/dev/video0","torch":"off","torch_mode":"auto","mode":"trigger","paused":true,"scanning":false},"counters":{"detections":0,"reads":3,"reads_by_symbology":{},"duplicates":0,"unconfirmed":0,"merged":0,"dropped":{},"rejected":0,"reconnects":0,"clients":1,"clients_refused":0,"torch_switch_ons":0,"frames_decoded":0,"frames_skipped":0,"frames_gated":0,"views_sent":0,"views_skipped":0,"decode_histogram":[0,0,0,0,0,0,0,0,0,0,0],"decode_seconds":0},"clients":1,"held":0,"awaiting":0,"outputs":[],"watchers":2}}"#
        let status = try #require(StatusSnapshot.inReply(line))
        #expect(status.state.camera == "busy" && status.state.mode == .trigger && status.counters.reads == 3 && status.watchers == 2)
        #expect(StatusSnapshot.inReply(#"{"type":"reply","command":"status","ok":false,"error":"no"}"#) == nil)
    }
}
