import CTurboJPEG
import ScannerCore

/// JPEG through libturbojpeg, decoded to grey; a warning such as a truncated file is an error.
enum JPEGReader {
    static func decode(_ bytes: [UInt8]) throws(ImageDataError) -> Frame {
        guard let handle = tjInitDecompress() else { throw ImageDataError("libturbojpeg could not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else { throw ImageDataError("invalid JPEG: \(String(cString: tjGetErrorStr2(handle)))") }
        try ImageFile.checkSize(width: Int(width), height: Int(height))
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
}
