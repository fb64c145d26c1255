import ImageFiles
import Imaging
import Testing

/// Netpbm files of every kind read to the same luma: the raw 8-bit PGM by a copy of its raster,
/// the others sample by sample.
struct PNMTests {
    /// A 5x3 grey ramp, one value per pixel.
    static let values: [UInt8] = (0..<15).map { UInt8($0 * 17) }

    func luma(_ bytes: [UInt8], _ name: String) throws -> [UInt8] {
        let frame = try ImageFile.decode(bytes, path: name)
        #expect(frame.width == 5 && frame.height == 3)
        return (0..<3).flatMap { y in (0..<5).map { x in frame[x, y] } }
    }

    @Test func everyGreyAndColourKindReadsTheSameLuma() throws {
        let plain = Self.values.map(String.init).joined(separator: " ")
        #expect(try luma(Array("P5\n# a comment\n5 3\n255\n".utf8) + Self.values, "raw.pgm") == Self.values)
        #expect(try luma(Array("P2 5 3 255\n\(plain)\n".utf8), "plain.pgm") == Self.values)
        // 16-bit samples, big-endian: the high byte is the 8-bit value.
        #expect(try luma(Array("P5 5 3 65535\n".utf8) + Self.values.flatMap { [$0, $0] }, "deep.pgm") == Self.values)
        // maxval 15: each 8-bit value scaled down and back up.
        let scaled = Self.values.map { UInt8(Int($0) / 17) }
        #expect(try luma(Array("P5 5 3 15\n".utf8) + scaled, "shallow.pgm") == Self.values)
        // Colour with equal channels is its grey.
        #expect(try luma(Array("P6 5 3 255\n".utf8) + Self.values.flatMap { [$0, $0, $0] }, "raw.ppm") == Self.values)
        let plainColour = Self.values.map { "\($0) \($0) \($0)" }.joined(separator: "\n")
        #expect(try luma(Array("P3 5 3 255\n\(plainColour)\n".utf8), "plain.ppm") == Self.values)
    }

    @Test func aRawPGMRasterIsTakenFromAfterItsHeaderAndCheckedForLength() throws {
        // Trailing bytes after the raster are not image.
        #expect(try luma(Array("P5 5 3 255\n".utf8) + Self.values + [1, 2, 3], "long.pgm") == Self.values)
        #expect(throws: ImageFileError.self) { try ImageFile.decode(Array("P5 5 3 255\n".utf8) + Self.values.dropLast(), path: "short.pgm") }
    }

    @Test func bitmapsAreBlackOnWhite() throws {
        let frame = try ImageFile.decode(Array("P1 2 1\n1 0\n".utf8), path: "bits.pbm")
        #expect(frame[0, 0] == 0 && frame[1, 0] == 255)
        let packed = try ImageFile.decode(Array("P4 2 1\n".utf8) + [0b1000_0000], path: "bits.pbm")
        #expect(packed[0, 0] == 0 && packed[1, 0] == 255)
    }
}
