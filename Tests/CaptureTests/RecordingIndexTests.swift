import Capture
import Codes
import Foundation
import Imaging
import Testing

/// A recording's `index.json`, as `record` writes it and `replay:DIR` reads it.
@Suite struct RecordingIndexTests {
    static let box = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])

    @Test func aRecordingIndexMadeByHandNeedsOnlyFilesAndTimes() throws {
        let hand = #"{"frames": [{"file": "001.pgm", "timestamp_ns": 5}]}"#
        let index = try JSONDecoder.forEvents().decode(RecordingIndex.self, from: Data(hand.utf8))
        #expect(index.version == 1 && index.missedFrames == 0)
        #expect(index.frames.map(\.file) == ["001.pgm"] && index.frames[0].reads.isEmpty)
        var written = RecordingIndex()
        written.missedFrames = 2
        written.frames = [
            RecordingIndex.Entry(
                file: "frame-000001.pgm", sequence: 4, timestampNs: 7,
                reads: [Read(symbol: Symbol(symbology: .ean13, bytes: Array("5901234123457".utf8), corners: Self.box), frame: Size(width: 10, height: 10))])
        ]
        let again = try JSONDecoder.forEvents().decode(RecordingIndex.self, from: JSONEncoder.forEvents().encode(written))
        #expect(again.missedFrames == 2 && again.frames[0].sequence == 4 && again.frames[0].reads.map(\.text) == ["5901234123457"])
        #expect(throws: DecodingError.self) { try JSONDecoder.forEvents().decode(RecordingIndex.self, from: Data(#"{"frames": [{"file": "a"}]}"#.utf8)) }
    }
}
