import CPNG
import Imaging

/// PNG through libpng's simplified API, straight to 8-bit grey, composed on white where transparent.
enum PNGReader {
    static func decode(_ bytes: [UInt8]) throws(ImageDataError) -> Frame {
        var image = png_image()
        image.version = ks_png_image_version()
        let began = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        defer { png_image_free(&image) }
        guard began != 0 else { throw ImageDataError("invalid PNG: \(message(image))") }
        let width = Int(image.width)
        let height = Int(image.height)
        try ImageFile.checkSize(width: width, height: height)
        image.format = UInt32(PNG_FORMAT_GRAY)
        var white = png_color(red: 255, green: 255, blue: 255)
        let storage = try LumaStorage(count: width * height) { (buffer: UnsafeMutableRawBufferPointer) throws(ImageDataError) in
            let finished = bytes.withUnsafeBytes { _ in
                png_image_finish_read(&image, &white, buffer.baseAddress, Int32(width), nil)
            }
            guard finished != 0, ks_png_image_failed(&image) == 0 else {
                throw ImageDataError("invalid PNG: \(message(image))")
            }
        }
        return Frame(width: width, height: height, stride: width, storage: storage)
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
