import FoundationEssentials
import Imaging
import Platform

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
    /// The symbology has a check that a misread fails (`Symbology.hasMandatoryCheck`): false asks a
    /// careful POS to confirm the read. Nil only in JSON written before it existed (a spool, a recording).
    public var checked: Bool?
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
        self.checked = symbol.symbology.hasMandatoryCheck
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
        case aim, text, bytes, immediate, checked, content, gs1
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

/// A code merged into another's read because it carried the same GTIN.
public struct MergedCode: Sendable, Hashable, Codable {
    public var symbology: String
    public var symbologyID: Symbology
    public var text: String

    public init(_ read: Read) {
        symbology = read.symbology
        symbologyID = read.symbologyID
        text = read.shownText
    }

    enum CodingKeys: String, CodingKey {
        case symbology
        case symbologyID = "symbology_id"
        case text
    }
}
