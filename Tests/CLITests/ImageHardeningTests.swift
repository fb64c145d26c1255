import Foundation
import ImageFiles
import ScannerTestSupport
import Testing

/// Image files that cost too much or come in print colour spaces, through the real `scan`.
@Suite(.timeLimit(.minutes(2))) struct ImageHardeningTests {
    func scan(_ arguments: [String]) throws -> ToolResult {
        try Tool.capture(Tool.scannerBinary, ["scan"] + arguments)
    }

    /// Runs a Pillow script with the output path and a QR code PNG as its arguments.
    func pillow(_ script: String, qr: String, out name: String) throws -> String {
        let path = try TemporaryDirectory.shared.file("\(UUID().uuidString.prefix(6))-\(name)")
        try Tool.run("/usr/bin/python3", ["-c", "import sys\nfrom PIL import Image\n" + script, path, qr])
        return path
    }

    @Test func aHugeTexturedImageIsScaledToTheDecodeBoundAndItsCodeRead() throws {
        // 8000x8000 of noise with a QR code of 24-pixel modules near the right edge.
        let qr = try Barcodes.qr("eight thousand", moduleSize: 24)
        let path = try pillow(
            """
            image = Image.effect_noise((8000, 8000), 48).point(lambda v: 96 + v // 2)
            code = Image.open(sys.argv[2]).convert("L")
            image.paste(code, (7000 - code.width, 4000 - code.height // 2))
            image.save(sys.argv[1], compress_level=1)
            """, qr: qr, out: "huge.png")
        let result = try scan(["--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("8000x8000 scaled down 2 times to 4000x4000 (scan decodes at most 16 Mpixel)"), "\(result.stderr)")
        let read = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(read["text"] as? String == "eight thousand")
        #expect((read["frame"] as? [String: Int]) == ["width": 8000, "height": 8000], "the file's own size")
        let xs = (read["corners"] as? [[String: Int]])?.compactMap { $0["x"] } ?? []
        #expect(xs.allSatisfy { $0 > 4000 && $0 <= 7000 }, "corners in the file's pixels: \(xs)")
    }

    @Test func cmykAndYCCKJPEGsAreRead() throws {
        let qr = try Barcodes.qr("printed in cmyk")
        let cmyk = try pillow(
            """
            Image.open(sys.argv[2]).convert("RGB").convert("CMYK").save(sys.argv[1], quality=95)
            """, qr: qr, out: "cmyk.jpg")
        let result = try scan([cmyk])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "QR-Code:printed in cmyk\n")

        let ycck = try TemporaryDirectory.shared.file("\(UUID().uuidString.prefix(6))-ycck.jpg")
        try Data(JPEG.encodeYCCK(try ImageFile.read(path: try Barcodes.qr("ycck too")))).write(to: URL(fileURLWithPath: ycck))
        let second = try scan([ycck])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "QR-Code:ycck too\n")
    }
}
