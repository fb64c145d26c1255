import Imaging

/// Netpbm images: PBM (P1, P4), PGM (P2, P5) and PPM (P3, P6), any maxval up to 65535, as grey.
enum PNMReader {
    static func decode(_ bytes: [UInt8]) throws(ImageDataError) -> Frame {
        var cursor = Cursor(bytes: bytes, offset: 2)
        let kind = bytes[1] - UInt8(ascii: "0")
        let width = try cursor.number("width")
        let height = try cursor.number("height")
        let isBitmap = kind == 1 || kind == 4
        let maxval = isBitmap ? 1 : try cursor.number("maxval")
        guard (1...65535).contains(maxval) else { throw ImageDataError("invalid PNM: maxval \(maxval)") }
        try ImageFile.checkSize(width: width, height: height)
        let channels = (kind == 3 || kind == 6) ? 3 : 1
        let binary = kind >= 4
        if binary { cursor.offset += 1 }  // exactly one whitespace byte before the raster

        let storage = try LumaStorage(count: width * height) { (luma: UnsafeMutableRawBufferPointer) throws(ImageDataError) in
            if kind == 4 {
                let rowBytes = (width + 7) / 8
                guard cursor.offset + rowBytes * height <= bytes.count else { throw ImageDataError("truncated PBM raster") }
                for y in 0..<height {
                    for x in 0..<width {
                        let bit = bytes[cursor.offset + y * rowBytes + x / 8] >> (7 - UInt8(x % 8)) & 1
                        luma[y * width + x] = bit == 1 ? 0 : 255
                    }
                }
                return
            }
            let sampleBytes = maxval > 255 ? 2 : 1
            if binary, cursor.offset + width * height * channels * sampleBytes > bytes.count {
                throw ImageDataError("truncated PNM raster: \(bytes.count - cursor.offset) bytes for \(width)x\(height)")
            }
            if binary, channels == 1, maxval == 255 {
                // The usual PGM (what `kiosk-scanner record` writes): the raster is the luma.
                bytes.withUnsafeBytes { raster in
                    luma.copyMemory(from: UnsafeRawBufferPointer(rebasing: raster[cursor.offset..<cursor.offset + width * height]))
                }
                return
            }
            // Sample `index` of the raster, in order (a plain PNM's are read as they come).
            func sample(_ index: Int) throws(ImageDataError) -> Int {
                if binary {
                    let at = cursor.offset + index * sampleBytes
                    return sampleBytes == 2 ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : Int(bytes[at])
                }
                let value = try cursor.number("sample")
                guard value <= maxval else { throw ImageDataError("sample above maxval") }
                return value
            }
            for pixel in 0..<(width * height) {
                let value: Int
                if channels == 3 {
                    let red = try sample(pixel * 3)
                    let green = try sample(pixel * 3 + 1)
                    let blue = try sample(pixel * 3 + 2)
                    value = (299 * red + 587 * green + 114 * blue) / 1000
                } else {
                    value = try sample(pixel)
                }
                luma[pixel] = isBitmap ? (value == 1 ? 0 : 255) : UInt8(min(255, value * 255 / maxval))
            }
        }
        return Frame(width: width, height: height, stride: width, storage: storage)
    }

    /// Reads the whitespace-separated numbers of a PNM header, skipping `#` comments.
    private struct Cursor {
        let bytes: [UInt8]
        var offset: Int

        mutating func number(_ what: String) throws(ImageDataError) -> Int {
            while offset < bytes.count {
                if bytes[offset] == UInt8(ascii: "#") {
                    while offset < bytes.count, bytes[offset] != UInt8(ascii: "\n") { offset += 1 }
                } else if [9, 10, 13, 32].contains(bytes[offset]) {
                    offset += 1
                } else {
                    break
                }
            }
            var value = 0
            var digits = 0
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
                value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
                digits += 1
                offset += 1
                guard value <= 1 << 24 else { throw ImageDataError("invalid PNM: \(what) too large") }
            }
            guard digits > 0 else { throw ImageDataError(offset >= bytes.count ? "truncated PNM: no \(what)" : "invalid PNM: bad \(what)") }
            return value
        }
    }
}
