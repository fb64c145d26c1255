import CTurboJPEG
import Imaging

/// JPEG through libturbojpeg, decoded to grey; a warning such as a truncated file is an error.
enum JPEGReader {
    static func decode(_ bytes: [UInt8]) throws(ImageDataError) -> Frame {
        guard let handle = tjInitDecompress() else { throw ImageDataError("libturbojpeg could not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else { throw ImageDataError("invalid JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        try ImageFile.checkSize(width: Int(width), height: Int(height))
        if colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) {
            return try decodeCMYK(bytes, handle: handle, width: Int(width), height: Int(height))
        }
        let storage = try LumaStorage(count: Int(width) * Int(height)) { (buffer: UnsafeMutableRawBufferPointer) throws(ImageDataError) in
            let flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS
            let result = bytes.withUnsafeBufferPointer {
                tjDecompress2(
                    handle, $0.baseAddress, UInt($0.count), buffer.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    width, width, height, Int32(TJPF_GRAY.rawValue), flags)
            }
            guard result == 0 else { throw ImageDataError("invalid JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        }
        return Frame(width: Int(width), height: Int(height), stride: Int(width), storage: storage)
    }

    /// A CMYK or YCCK JPEG (print workflows, Photoshop), which libjpeg cannot turn into grey
    /// itself: decoded to CMYK, then to luma. Such files store ink inverted, as Adobe's writers do
    /// (and libjpeg's, behind the Adobe marker it writes): a stored 255 is no ink.
    private static func decodeCMYK(_ bytes: [UInt8], handle: tjhandle, width: Int, height: Int) throws(ImageDataError) -> Frame {
        var cmyk = [UInt8](repeating: 0, count: width * height * 4)
        let result = bytes.withUnsafeBufferPointer { source in
            cmyk.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), target.baseAddress, Int32(width), Int32(width * 4), Int32(height),
                    Int32(TJPF_CMYK.rawValue), TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
            }
        }
        guard result == 0 else { throw ImageDataError("invalid JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        var luma = [UInt8](repeating: 0, count: width * height)
        for index in 0..<(width * height) {
            let c = Int(cmyk[4 * index])
            let m = Int(cmyk[4 * index + 1])
            let y = Int(cmyk[4 * index + 2])
            let k = Int(cmyk[4 * index + 3])
            // Red, green and blue are the light the inks leave, times the black's; then BT.601 luma.
            luma[index] = UInt8((299 * c * k + 587 * m * k + 114 * y * k) / (1000 * 255))
        }
        return Frame(width: width, height: height, pixels: luma)
    }
}
