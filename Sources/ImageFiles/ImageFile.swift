import Imaging
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// An image file that could not be turned into a frame; the message names the file.
public struct ImageFileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}

/// Reads PNG, JPEG and PGM/PPM/PBM files into luma frames, refusing what is corrupt or too large.
public enum ImageFile {
    /// Files larger than this are refused before they are read.
    public static let maxFileBytes = 256 << 20
    /// Images with more pixels than this are refused before their pixels are decoded.
    public static let maxPixels = 64_000_000

    /// The most pixels `scan` decodes: a larger image is scaled down to fit, so that one file
    /// costs a few seconds at most (a 64-Mpixel photo took 11 to 18 s whole).
    public static let maxDecodePixels = 16_000_000

    /// `frame`, scaled down by the smallest whole factor that brings it within `maxDecodePixels`
    /// (each pixel the mean of its block), and that factor; 1 and the frame itself when it fits.
    public static func boundedForDecoding(_ frame: Frame) -> (frame: Frame, factor: Int) {
        var factor = 1
        while (frame.width / factor) * (frame.height / factor) > maxDecodePixels { factor += 1 }
        guard factor > 1 else { return (frame, 1) }
        let width = frame.width / factor
        let height = frame.height / factor
        var pixels = [UInt8](repeating: 0, count: width * height)
        var sums = [Int](repeating: 0, count: width)
        for y in 0..<height {
            for i in 0..<width { sums[i] = 0 }
            for row in (y * factor)..<(y * factor + factor) {
                for x in 0..<(width * factor) { sums[x / factor] += Int(frame[x, row]) }
            }
            for x in 0..<width { pixels[y * width + x] = UInt8(sums[x] / (factor * factor)) }
        }
        return (Frame(width: width, height: height, pixels: pixels), factor)
    }

    /// Reads and decodes the file at `path`.
    public static func read(path: String) throws(ImageFileError) -> Frame {
        try decode(readBytes(path: path), path: path)
    }

    /// Decodes an image held in memory; `path` only names it in errors.
    public static func decode(_ bytes: [UInt8], path: String) throws(ImageFileError) -> Frame {
        guard !bytes.isEmpty else { throw ImageFileError(path: path, reason: "empty file") }
        do {
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return try PNGReader.decode(bytes) }
            if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try JPEGReader.decode(bytes) }
            if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]) {
                return try PNMReader.decode(bytes)
            }
        } catch {
            throw ImageFileError(path: path, reason: error.reason)
        }
        throw ImageFileError(path: path, reason: "not a PNG, JPEG or PNM image")
    }

    /// Refuses dimensions that are empty or too large, before any pixel is allocated.
    static func checkSize(width: Int, height: Int) throws(ImageDataError) {
        guard width > 0, height > 0 else { throw ImageDataError("image has no pixels (\(width)x\(height))") }
        guard width <= 65535, height <= 65535, width * height <= maxPixels else {
            throw ImageDataError("image too large: \(width)x\(height) exceeds \(maxPixels) pixels")
        }
    }

    private static func readBytes(path: String) throws(ImageFileError) -> [UInt8] {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
        } catch {
            throw ImageFileError(path: path, reason: "\(error)")
        }
        defer { try? file.close() }
        var status = stat()
        guard fstat(file.rawValue, &status) == 0 else { throw ImageFileError(path: path, reason: Errno(rawValue: errno).description) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw ImageFileError(path: path, reason: "not a regular file") }
        guard status.st_size <= maxFileBytes else {
            throw ImageFileError(path: path, reason: "file too large (\(status.st_size) bytes, limit \(maxFileBytes))")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let count: Int
            do {
                count = try bytes.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            } catch {
                throw ImageFileError(path: path, reason: "\(error)")
            }
            guard count > 0 else { throw ImageFileError(path: path, reason: "file shrank while reading") }
            filled += count
        }
        return bytes
    }
}

/// A decoding failure inside one of the readers, before the file name is attached.
struct ImageDataError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
