import Foundation
import ScannerCore
import ScannerProtocol
import Testing

/// The socket's JSON events as the daemon encodes them and the tools decode them.
@Suite struct EventTests {
    static let box = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])

    static func read(_ symbology: Symbology, _ text: String, gs1: Bool = false) -> Read {
        Read(symbol: Symbol(symbology: symbology, bytes: Array(text.utf8), isGS1: gs1, corners: box), frame: Size(width: 10, height: 10))
    }

    @Test func jsonCarriesTextBytesAndCorners() throws {
        var read = Self.read(.qr, "Grüße")
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
        var read = Self.read(.code128, "010950600013435217261231", gs1: true)
        read.seq = 42
        read.time = Date(timeIntervalSince1970: 1_795_000_000.042)
        read.merged = [MergedCode(Self.read(.ean13, "9506000134352"))]
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
        var serial = OutputHealth(name: "serial /dev/ttyGS0", state: "waiting", detail: "no such device")
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

    /// The pixels go in after encoding, as base64 in the `luma` field, and come out as they went in.
    @Test func aFrameEventCarriesItsPixels() throws {
        let pixels: [UInt8] = (0..<12).map { UInt8($0 * 20) }
        let frame = FrameEvent(
            sequence: 9, timestampNs: 123_456_789, width: 4, height: 3, viewport: PixelRect(x: 1, y: 0, width: 2, height: 3),
            symbols: [Self.read(.qr, "A")], reads: [])
        let line = Event.frame(frame, luma: pixels, encoder: .forEvents())
        let decoded = try JSONDecoder.forEvents().decode(FrameEvent.self, from: Data(line.utf8))
        #expect(decoded.type == "frame" && decoded.sequence == 9 && decoded.timestampNs == 123_456_789)
        #expect(decoded.viewport == frame.viewport)
        #expect(decoded.symbols.map(\.text) == ["A"])
        #expect(Data(base64Encoded: decoded.luma).map { [UInt8]($0) } == pixels)
    }

    @Test func aRecordingIndexMadeByHandNeedsOnlyFilesAndTimes() throws {
        let hand = #"{"frames": [{"file": "001.pgm", "timestamp_ns": 5}]}"#
        let index = try JSONDecoder.forEvents().decode(RecordingIndex.self, from: Data(hand.utf8))
        #expect(index.version == 1 && index.missedFrames == 0)
        #expect(index.frames.map(\.file) == ["001.pgm"] && index.frames[0].reads.isEmpty)
        var written = RecordingIndex()
        written.missedFrames = 2
        written.frames = [RecordingIndex.Entry(file: "frame-000001.pgm", sequence: 4, timestampNs: 7, reads: [Self.read(.ean13, "5901234123457")])]
        let again = try JSONDecoder.forEvents().decode(RecordingIndex.self, from: JSONEncoder.forEvents().encode(written))
        #expect(again.missedFrames == 2 && again.frames[0].sequence == 4 && again.frames[0].reads.map(\.text) == ["5901234123457"])
        #expect(throws: DecodingError.self) { try JSONDecoder.forEvents().decode(RecordingIndex.self, from: Data(#"{"frames": [{"file": "a"}]}"#.utf8)) }
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
}
