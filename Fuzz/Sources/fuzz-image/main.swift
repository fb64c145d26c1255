import FuzzSupport
import ImageFiles

/// An image file's bytes (PNG through libpng, JPEG through libjpeg-turbo, PNM in Swift), decoded
/// to a frame as `kiosk-scanner scan` does, then every pixel read, so that ASan sees a short plane.
func fuzzImage(_ bytes: UnsafeRawBufferPointer) {
    let bytes = Array(bytes)
    guard let frame = try? ImageFile.decode(bytes, path: "fuzz") else { return }
    precondition(frame.width > 0 && frame.height > 0 && frame.stride >= frame.width)
    precondition(frame.storage.count >= frame.stride * (frame.height - 1) + frame.width)
    var sum = 0
    for y in 0..<frame.height where frame.width * frame.height <= 1 << 20 {
        for x in 0..<frame.width { sum &+= Int(frame[x, y]) }
    }
    let bounded = ImageFile.boundedForDecoding(frame)
    precondition(bounded.frame.width * bounded.frame.height <= ImageFile.maxDecodePixels)
    precondition(sum >= 0)
}

runFuzzer(fuzzImage)
