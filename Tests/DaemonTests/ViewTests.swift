import Codes
import Foundation
import ImageFiles
import Imaging
import ScannerProtocol
import Testing

@testable import Daemon

/// A watch's `view` line, made of a tapped frame in this process.
@Suite struct ViewTests {
    /// A 640x480 frame, black on the left half and white on the right, with a code's read at a known place.
    static func tapped(sequence: UInt64 = 1) -> TappedFrame {
        let luma = (0..<(640 * 480)).map { $0 % 640 < 320 ? UInt8(0) : 255 }
        let corners = Corners([Point(x: 100, y: 60), Point(x: 300, y: 60), Point(x: 300, y: 260), Point(x: 100, y: 260)])
        let read = Read(symbol: Symbol(symbology: .qr, bytes: Array("in view".utf8), corners: corners), frame: Size(width: 640, height: 480))
        return TappedFrame(
            width: 640, height: 480, sequence: sequence, timestamp: 0, luma: luma, viewport: PixelRect(x: 140, y: 60, width: 360, height: 360),
            symbols: [read], reads: [read])
    }

    @Test func aViewIsTheFrameScaledDownAsAJPEGWithItsCodesAndViewportScaledToo() throws {
        let line = try ViewLine.make(Self.tapped(), seq: 5, width: 320).get()
        let view = try JSONDecoder.forEvents().decode(ViewEvent.self, from: Data(line.utf8))
        #expect(view.type == "view" && view.seq == 5)
        #expect(Size(width: view.frameWidth, height: view.frameHeight) == Size(width: 640, height: 480))
        #expect(Size(width: view.width, height: view.height) == Size(width: 320, height: 240))
        #expect(view.viewport == PixelRect(x: 70, y: 30, width: 180, height: 180))
        #expect(
            view.codes == [ViewCode(symbology: "QR-Code", text: "in view", corners: [[50, 30], [150, 30], [150, 130], [50, 130]])],
            "a read among the symbols is one code")
        let jpeg = try #require(Data(base64Encoded: view.jpeg))
        let image = try ImageFile.decode([UInt8](jpeg), path: "view.jpg")
        #expect(image.size == Size(width: 320, height: 240))
        #expect(image[40, 120] < 16 && image[280, 120] > 239, "black left, white right: \(image[40, 120]), \(image[280, 120])")
    }

    @Test func aViewIsNeverWiderThanItsFrame() throws {
        let line = try ViewLine.make(Self.tapped(), seq: 1, width: 1280).get()
        let view = try JSONDecoder.forEvents().decode(ViewEvent.self, from: Data(line.utf8))
        #expect(Size(width: view.width, height: view.height) == Size(width: 640, height: 480))
        #expect(view.viewport == PixelRect(x: 140, y: 60, width: 360, height: 360))
        #expect(view.codes.first?.corners == [[100, 60], [300, 60], [300, 260], [100, 260]])
    }
}
