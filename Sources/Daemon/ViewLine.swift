import Codes
import FoundationEssentials
import ImageFiles
import Imaging
import ScannerProtocol

/// A `view` event's line for a tapped frame: the luma plane scaled down and encoded as JPEG, and
/// the viewport and the codes in the coordinates of the scaled image.
enum ViewLine {
    /// Why a view could not be made.
    struct Failure: Error {
        let reason: String
    }

    /// JPEG quality of views: enough to aim by and see a code's outline, at some 20 to 60 KB for 640 px.
    static let quality: Int32 = 75

    /// The line of view `seq` of `frame`, scaled down to `width` pixels wide at most.
    static func make(_ frame: TappedFrame, seq: UInt64, width: Int) -> Result<String, Failure> {
        guard frame.width > 0, frame.height > 0, frame.luma.count == frame.width * frame.height else {
            return .failure(Failure(reason: "frame of \(frame.luma.count) bytes for \(frame.width)x\(frame.height)"))
        }
        let encoded = frame.luma.withUnsafeBytes { luma in
            // The plane is borrowed for the encoding only: the scaled frame owns its pixels.
            let grey = Frame(
                width: frame.width, height: frame.height, stride: frame.width, storage: LumaStorage(borrowing: luma.baseAddress!, count: luma.count))
            return Result { () throws(ImageFileError) in try ImageFile.encodeJPEG(grey: grey, width: width, quality: quality) }
        }
        switch encoded {
        case .failure(let error):
            return .failure(Failure(reason: error.description))
        case .success(let jpeg):
            let scale = Scale(from: Size(width: frame.width, height: frame.height), to: jpeg.size)
            let view = ViewEvent(
                seq: seq, frame: Size(width: frame.width, height: frame.height), image: jpeg.size, viewport: scale.rect(frame.viewport),
                codes: codes(in: frame, scale: scale))
            return .success(Event.view(view, jpeg: jpeg.bytes, encoder: JSONEncoder.forEvents()))
        }
    }

    /// The codes the pipeline found in the frame, and the reads made from it that are not among them
    /// (a read can come from an earlier look at the same code).
    static func codes(in frame: TappedFrame, scale: Scale) -> [ViewCode] {
        var seen: [Read] = []
        for read in frame.symbols + frame.reads
        where !seen.contains(where: { $0.symbologyID == read.symbologyID && $0.bytes == read.bytes && $0.corners == read.corners }) {
            seen.append(read)
        }
        return seen.map { ViewCode(symbology: $0.symbology, text: $0.text, corners: $0.corners.map(scale.point)) }
    }

    /// Frame pixels to pixels of the scaled image.
    struct Scale {
        let from: Size
        let to: Size

        /// A point, rounded to the nearest pixel and kept inside the image.
        func point(_ point: Point) -> [Int] {
            [Self.map(point.x, from.width, to.width), Self.map(point.y, from.height, to.height)]
        }

        private static func map(_ value: Int, _ from: Int, _ to: Int) -> Int {
            min(max(0, (max(0, value) * to + from / 2) / from), to - 1)
        }

        /// A rectangle, grown to whole pixels of the scaled image and kept inside it.
        func rect(_ rect: PixelRect) -> PixelRect {
            func span(_ start: Int, _ length: Int, _ from: Int, _ to: Int) -> (Int, Int) {
                let first = min(max(0, start), from) * to / from
                let end = (min(max(0, start + length), from) * to + from - 1) / from
                return (first, max(0, end - first))
            }
            let (x, width) = span(rect.x, rect.width, from.width, to.width)
            let (y, height) = span(rect.y, rect.height, from.height, to.height)
            return PixelRect(x: x, y: y, width: width, height: height)
        }
    }
}
