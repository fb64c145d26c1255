import CPNG

/// An 8-bit RGB picture, for images the tools write (the annotated `snapshot`).
public struct RGBImage: Sendable {
    public let width: Int
    public let height: Int
    /// Three bytes per pixel, `width * 3` bytes per row.
    public var pixels: [UInt8]

    /// A colour picture of a grey plane (`width` bytes per row).
    public init(width: Int, height: Int, grey: [UInt8]) {
        precondition(grey.count == width * height, "grey plane of \(grey.count) bytes for \(width)x\(height)")
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<grey.count {
            pixels[3 * index] = grey[index]
            pixels[3 * index + 1] = grey[index]
            pixels[3 * index + 2] = grey[index]
        }
        self.pixels = pixels
    }

    /// The colour at (x, y).
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let offset = 3 * (y * width + x)
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// Sets (x, y) to `color`; points outside the picture are ignored.
    public mutating func set(x: Int, y: Int, _ color: (r: UInt8, g: UInt8, b: UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let offset = 3 * (y * width + x)
        pixels[offset] = color.r
        pixels[offset + 1] = color.g
        pixels[offset + 2] = color.b
    }
}

/// Writes PNG files through libpng's simplified API.
public enum PNGWriter {
    /// Writes `image` to `path` as an 8-bit RGB PNG.
    public static func write(_ image: RGBImage, to path: String) throws(ImageFileError) {
        var png = png_image()
        png.version = ks_png_image_version()
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_RGB)
        let written = image.pixels.withUnsafeBytes { png_image_write_to_file(&png, path, 0, $0.baseAddress, Int32(image.width * 3), nil) }
        defer { png_image_free(&png) }
        guard written != 0 else {
            let message = withUnsafeBytes(of: png.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            throw ImageFileError(path: path, reason: "cannot write PNG: \(message)")
        }
    }
}

extension RGBImage {
    /// Reads a PNG file as 8-bit RGB (for checking what the tools drew).
    public static func readPNG(path: String) throws(ImageFileError) -> RGBImage {
        var png = png_image()
        png.version = ks_png_image_version()
        guard png_image_begin_read_from_file(&png, path) != 0 else { throw ImageFileError(path: path, reason: "not a readable PNG") }
        defer { png_image_free(&png) }
        png.format = UInt32(PNG_FORMAT_RGB)
        let width = Int(png.width)
        let height = Int(png.height)
        guard width * height <= ImageFile.maxPixels else { throw ImageFileError(path: path, reason: "too large") }
        var image = RGBImage(width: width, height: height, grey: [UInt8](repeating: 0, count: width * height))
        let finished = image.pixels.withUnsafeMutableBytes { png_image_finish_read(&png, nil, $0.baseAddress, Int32(width * 3), nil) }
        guard finished != 0 else { throw ImageFileError(path: path, reason: "invalid PNG") }
        return image
    }
}
