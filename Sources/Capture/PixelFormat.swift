import CV4L2

/// The camera formats we read, in the order we prefer them: luma as it is first, then luma
/// beside chroma planes, then packed YUV (one pass), and JPEG only when nothing else is offered.
enum PixelFormat: CaseIterable {
    case grey, nv12, nv21, nv16, yuv420, yvu420, yuv422p, yuyv, uyvy, mjpeg, jpeg

    var fourcc: UInt32 {
        switch self {
        case .grey: KS_PIX_FMT_GREY
        case .nv12: KS_PIX_FMT_NV12
        case .nv21: KS_PIX_FMT_NV21
        case .nv16: KS_PIX_FMT_NV16
        case .yuv420: KS_PIX_FMT_YUV420
        case .yvu420: KS_PIX_FMT_YVU420
        case .yuv422p: KS_PIX_FMT_YUV422P
        case .yuyv: KS_PIX_FMT_YUYV
        case .uyvy: KS_PIX_FMT_UYVY
        case .mjpeg: KS_PIX_FMT_MJPEG
        case .jpeg: KS_PIX_FMT_JPEG
        }
    }

    /// How the luma plane is reached in a buffer of this format.
    enum Luma {
        /// The buffer starts with the luma plane: the frame points into the buffer, no copy.
        case plane
        /// Luma is every second byte starting at this offset: one pass into a plane.
        case packed(offset: Int)
        /// Compressed: decoded to luma.
        case compressed
    }

    var luma: Luma {
        switch self {
        case .grey, .nv12, .nv21, .nv16, .yuv420, .yvu420, .yuv422p: .plane
        case .yuyv: .packed(offset: 0)
        case .uyvy: .packed(offset: 1)
        case .mjpeg, .jpeg: .compressed
        }
    }

    /// The fourcc as four characters, as v4l2-ctl prints it.
    static func name(_ fourcc: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> ($0 * 8)) }, as: UTF8.self)
    }

    /// The preferred format among those offered.
    static func preferred(among offered: [UInt32]) -> PixelFormat? {
        allCases.first { offered.contains($0.fourcc) }
    }
}
