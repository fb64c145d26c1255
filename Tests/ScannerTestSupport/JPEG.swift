import CTurboJPEG
import Foundation
import ScannerCore

/// Writes frames as JPEG with libturbojpeg, so tests can make JPEG files without another tool.
public enum JPEG {
    /// The JPEG bytes of `frame`, grey, at `quality`.
    public static func encode(_ frame: Frame, quality: Int32 = 95) -> [UInt8] {
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = tjCompress2(
            handle, frame.storage.base.assumingMemoryBound(to: UInt8.self), Int32(frame.width), Int32(frame.stride), Int32(frame.height),
            Int32(TJPF_GRAY.rawValue), &output, &size, Int32(TJSAMP_GRAY.rawValue), quality, 0)
        precondition(status == 0, "tjCompress2 failed")
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
