import CPNG
import Platform

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

/// Encodes PNG files through libpng's simplified API, in memory: the caller puts the bytes where
/// it chooses (`snapshot` through `AtomicFile`, so that a symlink planted at the name is never
/// followed, as libpng's own `fopen` would).
public enum PNGWriter {
    /// `image` as an 8-bit RGB PNG file; `path`, where it is meant to go, names it in an error.
    public static func encode(_ image: RGBImage, for path: String) throws(ImageFileError) -> [UInt8] {
        var png = png_image()
        png.version = ks_png_image_version()
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_RGB)
        let stride = Int32(image.width * 3)
        var size = 0
        defer { png_image_free(&png) }
        func failure() -> ImageFileError {
            let message = withUnsafeBytes(of: png.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            return ImageFileError(path: path, reason: "cannot encode PNG: \(message)")
        }
        // The first pass only measures (libpng compresses twice), so that no buffer of the worst
        // case, the uncompressed size, is needed.
        let measured = image.pixels.withUnsafeBytes { png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, stride, nil) }
        guard measured != 0 else { throw failure() }
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBytes { out in
            image.pixels.withUnsafeBytes { png_image_write_to_memory(&png, out.baseAddress, &size, 0, $0.baseAddress, stride, nil) }
        }
        guard written != 0 else { throw failure() }
        return Array(bytes.prefix(size))
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
