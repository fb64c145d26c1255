import CTurboJPEG
import Imaging

extension ImageFile {
    /// The grey `frame` as a JPEG file's bytes through libturbojpeg, scaled down to `width` pixels
    /// wide first when it is wider (box averaging, `Frame.scaledDown`), and the encoded image's size.
    /// For pictures sent to people (a console's view of the camera), not for decoding again.
    public static func encodeJPEG(grey frame: Frame, width: Int? = nil, quality: Int32 = 75) throws(ImageFileError) -> (bytes: [UInt8], size: Size) {
        let image = width.map { frame.scaledDown(toWidth: $0) } ?? frame
        guard let handle = tjInitCompress() else { throw ImageFileError(path: "JPEG", reason: "libturbojpeg could not start") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = tjCompress2(
            handle, image.storage.base.assumingMemoryBound(to: UInt8.self), Int32(image.width), Int32(image.stride), Int32(image.height),
            Int32(TJPF_GRAY.rawValue), &output, &size, Int32(TJSAMP_GRAY.rawValue), quality, 0)
        // libturbojpeg may have allocated the output even when it failed.
        defer { tjFree(output) }
        guard status == 0, let output else {
            throw ImageFileError(path: "JPEG", reason: "cannot encode: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return (Array(UnsafeBufferPointer(start: output, count: Int(size))), image.size)
    }
}
