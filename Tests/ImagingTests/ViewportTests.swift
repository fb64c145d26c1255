import Imaging
import Testing

@Suite struct ViewportTests {
    @Test(arguments: [
        (640, 480, PixelRect(x: 140, y: 60, width: 360, height: 360)), (1280, 720, PixelRect(x: 370, y: 90, width: 540, height: 540)),
        (480, 640, PixelRect(x: 60, y: 140, width: 360, height: 360)),
    ])
    func defaultIsACentredSquareOfThreeQuartersOfTheShortSide(width: Int, height: Int, expected: PixelRect) {
        #expect(Viewport.standard.pixels(in: Size(width: width, height: height)) == expected)
    }

    @Test func rectIsNormalisedAndClamped() {
        #expect(
            Viewport.rect(x: 0.25, y: 0.5, width: 0.5, height: 0.5).pixels(in: Size(width: 640, height: 480))
                == PixelRect(x: 160, y: 240, width: 320, height: 240))
        #expect(Viewport.full.pixels(in: Size(width: 7, height: 5)) == PixelRect(x: 0, y: 0, width: 7, height: 5))
    }

    @Test func admitsByTheCentreOfTheCorners() {
        let size = Size(width: 640, height: 480)
        let inside = Corners(box: PixelRect(x: 300, y: 200, width: 40, height: 40), orientation: .up)
        let grazing = Corners(box: PixelRect(x: 100, y: 200, width: 60, height: 40), orientation: .up)  // centre x 130 < 140
        #expect(Viewport.standard.admits(inside, in: size))
        #expect(!Viewport.standard.admits(grazing, in: size))
    }

    @Test(arguments: [
        ("full", Viewport.full), ("square", .standard), ("square:0.5", .square(fraction: 0.5)),
        ("0.1, 0.2, 0.5, 0.6", .rect(x: 0.1, y: 0.2, width: 0.5, height: 0.6)),
    ])
    func parsesCommandLineForms(text: String, viewport: Viewport) throws {
        #expect(try Viewport(parsing: text) == viewport)
    }

    @Test(arguments: ["square:0", "square:1.5", "0.5,0.5,0.6,0.1", "1,2,3", "round", "-0.1,0,1,1"])
    func rejectsBadForms(text: String) {
        #expect(throws: ViewportSyntaxError.self) { try Viewport(parsing: text) }
    }

    @Test func cornersFollowOrientation() {
        let box = PixelRect(x: 10, y: 20, width: 11, height: 6)
        #expect(Corners(box: box, orientation: .up).points[0] == Point(x: 10, y: 20))
        #expect(Corners(box: box, orientation: .right).points[0] == Point(x: 20, y: 20))
        #expect(Corners(box: box, orientation: .down).points[0] == Point(x: 20, y: 25))
        #expect(Corners(box: box, orientation: .left).points[0] == Point(x: 10, y: 25))
        #expect(Corners(box: box, orientation: .up).centre == Point(x: 15, y: 22))
    }
}
