import Codes
import Foundation
import Imaging
import ScannerProtocol
import Testing

/// What a console's connection says and hears: `watch`, `unwatch` and `restrict`, `view` and
/// `outcome` events.
@Suite struct WatchEventTests {
    @Test(arguments: [
        ("watch", Command.watch(fps: 4, width: 640)), ("watch 15", .watch(fps: 15, width: 640)), ("WATCH 1 160", .watch(fps: 1, width: 160)),
        ("watch 10 1280", .watch(fps: 10, width: 1280)), ("unwatch", .unwatch), ("restrict", .restrict),
    ])
    func watchUnwatchAndRestrictAreParsed(line: String, command: Command) throws {
        #expect(try Command.parse(line).get() == command)
        #expect(command.name == line.split(separator: " ").first?.lowercased())
    }

    @Test(arguments: ["watch 0", "watch 16", "watch 4 159", "watch 4 1281", "watch four", "watch 4 640 1", "watch 4.5", "unwatch 1", "restrict me"])
    func watchOutsideItsBoundsGetsItsUsage(line: String) {
        guard case .failure(let error) = Command.parse(line) else {
            Issue.record("'\(line)' parsed")
            return
        }
        #expect(error.message.hasPrefix("usage: watch [FPS] [WIDTH]") || error.message.contains("takes no argument"), "\(error.message)")
    }

    /// The JPEG goes in after encoding, as base64 in `jpeg`, and comes out as it went in; corners
    /// are `[x, y]` pairs.
    @Test func aViewCarriesItsJPEGAndItsCodes() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
        let code = ViewCode(symbology: "QR-Code", text: #"say "jpeg":"" here"#, corners: [[1, 2], [9, 2], [9, 8], [1, 8]])
        let view = ViewEvent(
            seq: 3, frame: Size(width: 640, height: 480), image: Size(width: 320, height: 240), viewport: PixelRect(x: 70, y: 30, width: 180, height: 180),
            codes: [code])
        let line = Event.view(view, jpeg: jpeg, encoder: .forEvents())
        #expect(line.hasPrefix(#"{"codes":[{"corners":[[1,2],[9,2],[9,8],[1,8]],"symbology":"QR-Code","text":"say \"jpeg\":\"\" here"}],"#))
        #expect(line.contains(#""frame_height":480,"frame_width":640,"height":240,"jpeg":""#))
        let decoded = try JSONDecoder.forEvents().decode(ViewEvent.self, from: Data(line.utf8))
        #expect(decoded.type == "view" && decoded.seq == 3 && decoded.width == 320 && decoded.height == 240)
        #expect(decoded.viewport == view.viewport && decoded.codes == [code])
        #expect(Data(base64Encoded: decoded.jpeg).map { [UInt8]($0) } == jpeg)
    }

    @Test func anOutcomeIsJSONEscapedAndSaysWhyOnlyWhenThereIsAReason() throws {
        let held = OutcomeEvent(seq: 7, symbology: "QR-Code", text: "line\none \"quoted\"", outcome: .held, reason: "no-client")
        let line = Event.outcome(held, encoder: .forEvents())
        #expect(line == #"{"outcome":"held","reason":"no-client","seq":7,"symbology":"QR-Code","text":"line\none \"quoted\"","type":"outcome"}"#)
        #expect(try JSONDecoder.forEvents().decode(OutcomeEvent.self, from: Data(line.utf8)) == held)
        let delivered = Event.outcome(OutcomeEvent(seq: 8, symbology: "EAN-13", text: "5901234123457", outcome: .delivered), encoder: .forEvents())
        #expect(!delivered.contains("reason"))
    }
}
