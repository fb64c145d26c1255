import CTurboJPEG
import Imaging

/// Turns a camera buffer into a frame of luma, whichever source filled it (V4L2 or libcamera):
/// a plane format points into the buffer (no copy), packed YUV takes one pass into a plane kept
/// from frame to frame, and JPEG is decoded straight to grey.
final class LumaExtractor {
    let format: PixelFormat
    let width: Int, height: Int, bytesPerLine: Int
    private var scratch: LumaStorage?
    private var jpeg: tjhandle?

    init(format: PixelFormat, width: Int, height: Int, bytesPerLine: Int) {
        self.format = format
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        if case .compressed = format.luma { jpeg = tjInitDecompress() }
    }

    deinit {
        if let jpeg { tjDestroy(jpeg) }
    }

    /// The frame in a buffer of `length` bytes of which `used` hold the image; nil when the
    /// buffer is too short for the format or the JPEG does not decode.
    func frame(in buffer: UnsafeRawPointer, length: Int, used: Int, timestamp: UInt64, sequence: UInt64) -> Frame? {
        switch format.luma {
        case .plane:
            guard length >= bytesPerLine * (height - 1) + width else { return nil }
            let storage = LumaStorage(borrowing: buffer, count: length)
            return Frame(width: width, height: height, stride: bytesPerLine, timestamp: timestamp, sequence: sequence, storage: storage)
        case .packed(let offset):
            guard length >= bytesPerLine * (height - 1) + width * 2 else { return nil }
            let plane = scratchPlane()
            let target = UnsafeMutableRawPointer(mutating: plane.base)
            for y in 0..<height {
                let row = buffer + y * bytesPerLine + offset
                let out = target + y * width
                for x in 0..<width { out.storeBytes(of: row.load(fromByteOffset: x * 2, as: UInt8.self), toByteOffset: x, as: UInt8.self) }
            }
            return Frame(width: width, height: height, stride: width, timestamp: timestamp, sequence: sequence, storage: plane)
        case .compressed:
            let plane = scratchPlane()
            guard let jpeg, used > 0, used <= length else { return nil }
            let result = tjDecompress2(
                jpeg, buffer.assumingMemoryBound(to: UInt8.self), UInt(used),
                UnsafeMutablePointer(mutating: plane.base.assumingMemoryBound(to: UInt8.self)),
                Int32(width), Int32(width), Int32(height), Int32(TJPF_GRAY.rawValue), 0)
            guard result == 0 || tjGetErrorCode(jpeg) == TJERR_WARNING.rawValue else { return nil }
            return Frame(width: width, height: height, stride: width, timestamp: timestamp, sequence: sequence, storage: plane)
        }
    }

    private func scratchPlane() -> LumaStorage {
        if let scratch { return scratch }
        let plane = LumaStorage(count: width * height) { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        scratch = plane
        return plane
    }
}
