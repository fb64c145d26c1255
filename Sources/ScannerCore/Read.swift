import FoundationEssentials
import Glibc

/// A code as it is delivered: what a POS needs to act on it, worked out once from a decoder's `Symbol`.
public struct Read: Sendable, Hashable, Codable {
    /// Delivery counter, set by whoever delivers reads (0 for the `scan` command).
    public var seq: UInt64
    /// Wall-clock time (UTC) when the read was made, just after its frame was decoded (or the file
    /// scanned); ISO 8601 with milliseconds in JSON. Not the frame's monotonic capture time, which
    /// `snapshot` and `record` carry as `timestamp_ns`.
    public var time: Date
    /// The zbarimg-style name, e.g. "EAN-13".
    public var symbology: String
    /// The config name of the symbology, e.g. "ean13".
    public var symbologyID: Symbology
    /// The AIM symbology identifier, e.g. "]E0".
    public var aim: String
    /// The data as text: UTF-8, or for bytes that are not UTF-8 but not binary either, Shift_JIS or
    /// ISO-8859-1 as zxing-cpp would guess it; nil for binary data.
    public var text: String?
    /// The data, always (base64 in JSON).
    public var bytes: Data
    /// The code can only hold digits and can be used as is.
    public var immediate: Bool
    /// What the text is.
    public var content: ContentType
    /// Parsed GS1 element strings, for GS1 data that parses.
    public var gs1: [GS1Element]?
    /// Why GS1 data did not parse, when it did not.
    public var gs1Error: String?
    /// Where `gs1` (or `gs1Error`) came from: `element-string` (a GS1 symbol's data) or
    /// `digital-link` (a GS1 Digital Link URI, `GS1DigitalLink`); nil for other codes.
    public var gs1Source: String?
    /// Where the code was.
    public var corners: [Point]
    /// The frame it was found in.
    public var frame: Size
    /// Which way the code faced.
    public var orientation: Orientation
    /// The decoder's confidence.
    public var quality: Int
    /// Codes of the same pack (the same GTIN, seen together) reported as this one read (`PackMerger`).
    public var merged: [MergedCode]?
    /// A driver's licence or ID card's fields that consumers get (`id.fields`); set by `readDocument`.
    public var id: DocumentFields?
    /// Why data that looked like a driver's licence or ID card did not parse.
    public var idError: String?
    /// A boarding pass's fields that consumers get (`boarding_pass.fields`).
    public var boardingPass: DocumentFields?
    /// The raw `text` and `bytes` of a document were withheld (`raw: false`, the default).
    public var rawWithheld: Bool?
    /// Every field of a kiosk document, for templates and rules: in memory only, never sent.
    public var document: KioskDocument? = nil

    /// Works out everything a POS needs from a decoded symbol.
    public init(symbol: Symbol, frame: Size, time: Date = Date(), seq: UInt64 = 0) {
        self.seq = seq
        self.time = time
        self.symbology = symbol.symbology.displayName
        self.symbologyID = symbol.symbology
        self.aim = symbol.symbology.aimIdentifier(gs1: symbol.isGS1)
        self.text = String(validating: symbol.bytes, as: UTF8.self) ?? LegacyText.decode(symbol.bytes)
        self.bytes = Data(symbol.bytes)
        self.immediate = symbol.symbology.holdsDigitsOnly
        self.content = ContentType.classify(text: text, isGS1: symbol.isGS1)
        if symbol.isGS1, let text {
            gs1Source = "element-string"
            do {
                self.gs1 = try GS1.parse(text, currentYear: UTCTime(time).year)
            } catch {
                self.gs1Error = error.description
            }
        } else if content == .url, let text {
            // A Digital Link is GS1 data as much as an element string; one that breaks a rule stays a URL.
            do {
                if let elements = try GS1DigitalLink.parse(text, currentYear: UTCTime(time).year) {
                    gs1 = elements
                    gs1Source = "digital-link"
                    content = .gs1
                }
            } catch {
                gs1Error = error.description
                gs1Source = "digital-link"
            }
        }
        self.corners = symbol.corners.points
        self.frame = frame
        self.orientation = symbol.orientation
        self.quality = symbol.quality
    }

    enum CodingKeys: String, CodingKey {
        case seq, time, symbology
        case symbologyID = "symbology_id"
        case aim, text, bytes, immediate, content, gs1
        case gs1Error = "gs1_error"
        case gs1Source = "gs1_source"
        case corners, frame, orientation, quality, merged, id
        case idError = "id_error"
        case boardingPass = "boarding_pass"
        case rawWithheld = "raw_withheld"
    }

    /// The text, or for binary data (no text) the bytes shown as Latin-1: for lines people read.
    public var shownText: String {
        text ?? LegacyText.latin1(bytes)
    }

    /// The zbarimg-style line, `SYMBOLOGY:TEXT` (`shownText`).
    public var line: String {
        "\(symbology):\(shownText)"
    }
}

/// A moment broken down in UTC with the C library, for ISO 8601 text and GS1 centuries. Times are
/// written and read by hand: milliseconds kept, and no ICU-backed formatter or calendar touched on
/// the read path (they cost megabytes of resident memory in a daemon).
public struct UTCTime {
    public let year: Int
    /// `2026-11-24T16:05:21.123Z`.
    public let iso8601: String

    public init(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        year = Int(parts.tm_year) + 1900
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(milliseconds % 1000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        iso8601 = "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// The moment `text` names, in the form `iso8601` writes (the fraction may have 0 to 9 digits);
    /// nil for anything else.
    public static func date(iso8601 text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int32? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ (0x30...0x39).contains(bytes[$0]) }) else { return nil }
            return range.reduce(0) { $0 * 10 + Int32(bytes[$1] - 0x30) }
        }
        let separators: [(Int, UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")), (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), separators.allSatisfy({ bytes[$0.0] == $0.1 }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), (22...30).contains(bytes.count), let digits = number(20..<(bytes.count - 1)) else { return nil }
            fraction = Double(digits) / pow(10, Double(bytes.count - 21))
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        guard seconds != -1 || (year == 1969 && month == 12 && day == 31) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
