import Imaging
import Testing

/// Frames scaled down for people to look at (a console's view): box averaging, never up, the aspect
/// ratio kept.
@Suite struct ScalingTests {
    @Test func eachPixelIsTheMeanOfTheBlockItCovers() {
        let frame = Frame(width: 4, height: 2, pixels: [0, 100, 200, 250, 50, 150, 0, 50])
        let scaled = frame.scaledDown(toWidth: 2)
        #expect(scaled.size == Size(width: 2, height: 1))
        #expect([scaled[0, 0], scaled[1, 0]] == [75, 125])
    }

    /// 5 columns into 2: blocks of 2 and 3 columns (and rows), so that every pixel counts once.
    @Test func aWidthThatDoesNotDivideTheFrameStillCoversEveryPixel() {
        let frame = Frame(width: 5, height: 5, pixels: (0..<25).map { $0 % 5 < 2 ? 10 : 200 })
        let scaled = frame.scaledDown(toWidth: 2)
        #expect(scaled.size == Size(width: 2, height: 2))
        #expect([scaled[0, 0], scaled[1, 0], scaled[0, 1], scaled[1, 1]] == [10, 200, 10, 200])
    }

    @Test func aFrameIsNeverScaledUp() {
        let frame = Frame(width: 320, height: 240, pixels: [UInt8](repeating: 7, count: 320 * 240))
        #expect(frame.scaledDown(toWidth: 640).storage === frame.storage)
        #expect(frame.scaledDown(toWidth: 320).storage === frame.storage)
        #expect(frame.sizeScaledDown(toWidth: 1280) == Size(width: 320, height: 240))
    }

    @Test(arguments: [
        (Size(width: 1280, height: 720), 640, Size(width: 640, height: 360)), (Size(width: 640, height: 480), 160, Size(width: 160, height: 120)),
        (Size(width: 641, height: 481), 160, Size(width: 160, height: 120)), (Size(width: 1920, height: 1080), 1280, Size(width: 1280, height: 720)),
        (Size(width: 1000, height: 1), 160, Size(width: 160, height: 1)),
    ])
    func theAspectRatioIsKept(frame: Size, width: Int, expected: Size) {
        let pixels = [UInt8](repeating: 0, count: frame.width * frame.height)
        #expect(Frame(width: frame.width, height: frame.height, pixels: pixels).scaledDown(toWidth: width).size == expected)
    }

    /// The bytes past each row's width (a camera's padding) are no pixels.
    @Test func paddingBetweenRowsIsNotAveragedIn() {
        let rows: [UInt8] = [40, 40, 255, 255, 40, 40, 255, 255]
        let storage = LumaStorage(count: rows.count) { buffer in rows.withUnsafeBytes { buffer.copyMemory(from: $0) } }
        let frame = Frame(width: 2, height: 2, stride: 4, storage: storage)
        let scaled = frame.scaledDown(toWidth: 1)
        #expect(scaled.size == Size(width: 1, height: 1) && scaled[0, 0] == 40)
    }
}
