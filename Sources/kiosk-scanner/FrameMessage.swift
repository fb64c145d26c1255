import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif
import ScannerCore

/// A frame as the daemon sends it to `snapshot` and `record` (the socket's `frame` object).
struct FrameMessage {
    let sequence: UInt64
    let timestampNs: UInt64
    let width: Int
    let height: Int
    let viewport: PixelRect
    let luma: [UInt8]
    /// Codes found in the frame and reads made from it, as the daemon encoded them.
    let symbols: [[String: JSON]]
    let reads: [JSON]

    /// Parses a `frame` object; nil when it is not one or its plane does not match its size.
    init?(_ object: [String: JSON], luma: Data?) {
        guard object["type"]?.string == "frame",
              let width = object["width"]?.int, let height = object["height"]?.int, width > 0, height > 0,
              let luma, luma.count == width * height,
              let viewport = object["viewport"]?.object?.compactMapValues(\.int)
        else { return nil }
        self.width = width
        self.height = height
        self.luma = [UInt8](luma)
        self.viewport = PixelRect(x: viewport["x"] ?? 0, y: viewport["y"] ?? 0, width: viewport["width"] ?? width, height: viewport["height"] ?? height)
        sequence = object["sequence"]?.uint64 ?? 0
        timestampNs = object["timestamp_ns"]?.uint64 ?? 0
        symbols = object["symbols"]?.array?.compactMap(\.object) ?? []
        reads = object["reads"]?.array ?? []
    }

    /// The frame as a binary PGM file.
    var pgm: Data {
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        data.append(contentsOf: luma)
        return data
    }
}

extension SocketLines {
    /// The next line that is a JSON object, skipping plain-format read lines. A frame's base64
    /// pixels are cut out before the JSON parser sees them, and come back decoded beside the object
    /// (parsing them as a JSON string would cost more than a frame interval).
    func nextObject() -> (object: [String: JSON], luma: Data?)? {
        while var line = next() {
            guard line.first == UInt8(ascii: "{") else { continue }
            var luma: Data?
            if let field = line.firstRange(of: Array(#""luma":""#.utf8)), let end = Self.quote(in: line, from: field.upperBound) {
                luma = Data(base64Encoded: line[field.upperBound..<end])
                line.removeSubrange(field.upperBound..<end)
            }
            guard let object = JSON.object(parsing: line) else { continue }
            return (object, luma)
        }
        return nil
    }

    /// The index of the first `"` at or after `offset`.
    private static func quote(in line: Data, from offset: Int) -> Int? {
        line.withUnsafeBytes { raw in
            guard offset < raw.count, let hit = memchr(raw.baseAddress! + offset, 0x22, raw.count - offset) else { return nil }
            return raw.baseAddress!.distance(to: UnsafeRawPointer(hit))
        }
    }
}
