import CTurboJPEG
import Foundation
import ImageFiles
import Imaging

/// Writes frames as JPEG with libturbojpeg, so tests can make JPEG files without another tool.
public enum JPEG {
    /// The JPEG bytes of `frame`, grey, at `quality` (the library's own encoder, unscaled).
    public static func encode(_ frame: Frame, quality: Int32 = 95) -> [UInt8] {
        try! ImageFile.encodeJPEG(grey: frame, quality: quality).bytes
    }
}

extension JPEG {
    /// A YCCK JPEG of `frame` (libturbojpeg compresses CMYK pixels as YCCK), its grey as black
    /// ink only, stored inverted as Adobe's writers store ink: a stored 255 is no ink.
    public static func encodeYCCK(_ frame: Frame, quality: Int32 = 95) -> [UInt8] {
        var cmyk = [UInt8](repeating: 255, count: frame.width * frame.height * 4)
        for y in 0..<frame.height {
            for x in 0..<frame.width { cmyk[4 * (y * frame.width + x) + 3] = frame[x, y] }
        }
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = tjCompress2(
            handle, cmyk, Int32(frame.width), Int32(frame.width * 4), Int32(frame.height),
            Int32(TJPF_CMYK.rawValue), &output, &size, Int32(TJSAMP_444.rawValue), quality, 0)
        precondition(status == 0, "tjCompress2 failed")
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
