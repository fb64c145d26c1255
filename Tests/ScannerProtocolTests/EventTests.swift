import Codes
import Foundation
import Imaging
import Platform
import ScannerProtocol
import ScannerTestSupport
import Testing

/// The socket's JSON events as the daemon encodes them and the tools decode them.
@Suite struct EventTests {
    static let box = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])

    @Test func jsonCarriesTextBytesAndCorners() throws {
        var read = Read.sample(.qr, "Grüße")
        read.seq = 7
        let object = try JSONSerialization.jsonObject(with: JSONEncoder.forEvents().encode(read)) as! [String: Any]
        #expect(object["text"] as? String == "Grüße")
        #expect(object["bytes"] as? String == Data("Grüße".utf8).base64EncodedString())
        #expect(object["aim"] as? String == "]Q1")
        #expect(object["seq"] as? Int == 7)
        #expect((object["corners"] as? [[String: Int]])?.count == 4)
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
        var fixed = read
        fixed.time = Date(timeIntervalSince1970: 1_795_000_000.042)  // 2026-11-18T11:06:40.042Z
        let line = String(decoding: try JSONEncoder.forEvents().encode(fixed), as: UTF8.self)
        #expect(line.contains("\"time\":\"2026-11-18T11:06:40.042Z\""))
    }

    /// What `listen` and `record` decode is the read the daemon encoded, to the millisecond.
    @Test func aScanEventDecodesToTheReadItCarries() throws {
        var read = Read.sample(.code128, "010950600013435217261231", gs1: true)
        read.seq = 42
        read.time = Date(timeIntervalSince1970: 1_795_000_000.042)
        read.merged = [MergedCode(Read.sample(.ean13, "9506000134352"))]
        let line = Event.scan(read, formatted: "09506000134352", encoder: .forEvents())
        #expect(try JSONDecoder().decode(Envelope.self, from: Data(line.utf8)).type == "scan")
        let event = try JSONDecoder.forEvents().decode(ScanEvent.self, from: Data(line.utf8))
        #expect(event.read == read)
        #expect(event.formatted == "09506000134352")
        #expect(event.read.gs1?.map(\.ai) == ["01", "17"])
        #expect(line.contains(#""merged":[{"symbology":"EAN-13","symbology_id":"ean13","text":"9506000134352"}]"#))
        #expect(!Event.scan(read, encoder: .forEvents()).contains("formatted"), "only a socket with formatting sends it")
    }

    @Test func aStatusReplyDecodesWithItsCountersAndOutputs() throws {
        var counters = CounterSnapshot()
        counters.reads = 3
        counters.readsBySymbology = ["QR-Code": 3]
        counters.dropped = ["no-client": 1]
        counters.decodeHistogram[2] = 5
        var serial = OutputStatus(name: "serial /dev/ttyGS0", state: "waiting", detail: "no such device")
        serial.failed = ["expired": 2]
        let state = StateEvent(
            camera: "streaming", device: "/dev/video0", detail: nil, format: "GREY 640x480", torch: true,
            torchMode: .auto, mode: .presentation, paused: false, scanning: true)
        let status = StatusReply(state: state, counters: counters, clients: 2, held: 1, outputs: [serial])
        let line = Event.reply("status", ok: true, status: status, encoder: .forEvents())
        let envelope = try JSONDecoder().decode(Envelope.self, from: Data(line.utf8))
        #expect(envelope.type == "reply" && envelope.command == "status")
        let reply = try JSONDecoder.forEvents().decode(Reply.self, from: Data(line.utf8))
        #expect(reply.ok && reply.error == nil)
        #expect(reply.status?.state == state)
        #expect(reply.status?.state.torch == "on")
        #expect(reply.status?.counters == counters)
        #expect(reply.status?.outputs == [serial])
        #expect(reply.status?.decodeMsP50 == 2, "the bucket of 2 ms holds every decode")
    }

    /// A daemon whose decodes took over a second (a debug build under emulation did) has its
    /// quantiles in the +Inf bucket, which JSON cannot carry: `status` once answered `{}` then,
    /// and the client waited for a reply that never came.
    @Test func aStatusReplyWithDecodesOverTheLastBucketIsStillAReply() throws {
        var counters = CounterSnapshot()
        counters.decodeHistogram[CounterSnapshot.decodeBuckets.count] = 3
        let reply = try Self.statusRoundTrip(counters)
        #expect(reply.command == "status" && reply.ok)
        // As Prometheus's histogram_quantile does: the highest finite bound.
        #expect(reply.status?.decodeMsP99 == 1000 && reply.status?.decodeMsP50 == 1000)
        #expect(reply.status?.counters == counters)
    }

    /// Nothing a line carries can make it fail to encode: a float that JSON has no number for is
    /// written as a string, and the line still decodes.
    @Test func aNonFiniteNumberDoesNotEmptyALine() throws {
        var counters = CounterSnapshot()
        counters.decodeSeconds = .infinity
        let reply = try Self.statusRoundTrip(counters)
        #expect(reply.command == "status" && reply.status?.counters.decodeSeconds == .infinity)
    }

    /// A status reply with `counters`, encoded as the daemon sends it and decoded as `status` reads it.
    static func statusRoundTrip(_ counters: CounterSnapshot) throws -> Reply {
        let state = StateEvent(
            camera: "streaming", device: "/dev/video0", detail: nil, format: nil, torch: false,
            torchMode: .auto, mode: .presentation, paused: false, scanning: true)
        let status = StatusReply(state: state, counters: counters, clients: 1, held: 0, outputs: [])
        let line = Event.reply("status", ok: true, status: status, encoder: .forEvents())
        return try JSONDecoder.forEvents().decode(Reply.self, from: Data(line.utf8))
    }

    /// The pixels go in after encoding, as base64 in the `luma` field, and come out as they went in.
    @Test func aFrameEventCarriesItsPixels() throws {
        let pixels: [UInt8] = (0..<12).map { UInt8($0 * 20) }
        let frame = FrameEvent(
            sequence: 9, timestampNs: 123_456_789, width: 4, height: 3, viewport: PixelRect(x: 1, y: 0, width: 2, height: 3),
            symbols: [Read.sample(.qr, "A")], reads: [])
        let line = Event.frame(frame, luma: pixels, encoder: .forEvents())
        let decoded = try JSONDecoder.forEvents().decode(FrameEvent.self, from: Data(line.utf8))
        #expect(decoded.type == "frame" && decoded.sequence == 9 && decoded.timestampNs == 123_456_789)
        #expect(decoded.viewport == frame.viewport)
        #expect(decoded.symbols.map(\.text) == ["A"])
        #expect(Data(base64Encoded: decoded.luma).map { [UInt8]($0) } == pixels)
    }

    @Test(arguments: [
        ("2026-11-18T11:06:40.042Z", 1_795_000_000.042),
        ("2026-11-18T11:06:40Z", 1_795_000_000.0),
        ("1970-01-01T00:00:00.5Z", 0.5),
        ("2000-02-29T23:59:59.999999Z", 951_868_799.999999),
    ])
    func timesAreReadAsTheyAreWritten(text: String, seconds: Double) throws {
        let date = try #require(UTCTime.date(iso8601: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        "", "2026-11-18", "2026-11-18T11:06:40.042", "2026-13-18T11:06:40Z", "2026-11-18 11:06:40Z", "2026-11-18T11:06:40.Z",
        "2026-11-18T11:06:40.0420000000Z", "2026-11-18T1a:06:40Z",
    ])
    func otherTextIsNotATime(text: String) {
        #expect(UTCTime.date(iso8601: text) == nil)
    }

    /// Socket clients are programs that take the data as it was encoded (JSON escapes it anyway).
    @Test func theSocketKeepsControlCharactersByDefault() {
        #expect(SocketConfig().controlCharacters == .keep)
    }
}
