import FoundationEssentials

/// How one output frames a read: its data as the formatting makes it (GTIN options, rules), with
/// control characters and GS1 separators as configured, with or without its AIM identifier, between
/// prefix and suffix, and a terminator. Pure: a read in, bytes out.
public struct OutputFormat: Sendable, Hashable {
    /// What ends a read.
    public enum Terminator: Sendable, Hashable {
        case none, cr, lf, crlf, tab
        case custom([UInt8])

        public var bytes: [UInt8] {
            switch self {
            case .none: []
            case .cr: [0x0D]
            case .lf: [0x0A]
            case .crlf: [0x0D, 0x0A]
            case .tab: [0x09]
            case .custom(let bytes): bytes
            }
        }
    }

    /// What becomes of GS1's group separator (0x1D, FNC1 between variable-length fields).
    public enum GS1Separator: Sendable, Hashable {
        /// Sent as is.
        case keep
        /// Replaced by these bytes (for a host that cannot take a control character).
        case replace([UInt8])
    }

    public var prefix: [UInt8] = []
    public var suffix: [UInt8] = []
    public var terminator = Terminator.crlf
    /// Put the AIM symbology identifier (`]E0`, `]Q1`...) before the data.
    public var aim = false
    public var gs1Separator = GS1Separator.keep
    /// What becomes of control characters in the data; what the config adds (prefix, suffix,
    /// terminator, the GS1 separator's replacement) goes out whatever it holds.
    public var controlCharacters = ControlCharacters.keep
    /// Control characters that `controlCharacters: drop` leaves in: GS for a keyboard wedge, which
    /// types it as its `gs_key`, so that GS1 fields stay apart by default.
    public var keptByDrop: Set<UInt8> = []
    public var formatting = Formatting()

    public init() {}

    /// A keyboard wedge's defaults: Enter after each read, and control characters dropped but GS,
    /// since an Enter or Tab in the middle of a code would submit or leave the host's form.
    public static var keyboard: OutputFormat {
        var format = OutputFormat()
        format.terminator = .cr
        format.controlCharacters = .drop
        format.keptByDrop = [0x1D]
        return format
    }

    /// The bytes of `read` as this output sends them, or nil when a formatting rule sends it as nothing.
    public func bytes(for read: Read) -> [UInt8]? { framed(read)?.bytes }

    /// The bytes of `read` as this output sends them, with the AIM identifier of what they hold
    /// (which the GTIN options may change); nil when a formatting rule sends it as nothing.
    /// A document whose raw data is withheld goes out only as an `id_template` makes it.
    public func framed(_ read: Read) -> (bytes: [UInt8], aim: String)? {
        guard let formatted = formatting.apply(to: read) else { return nil }
        if read.rawWithheld == true && !formatted.verbatim { return nil }
        let body = formatted.verbatim ? formatted.bytes : data(formatted.bytes)
        return (prefix + (aim ? Array(formatted.aim.utf8) : []) + body + suffix + terminator.bytes, formatted.aim)
    }

    /// Formatted data as this output sends it, before its framing: GS as `gs1Separator` says (a
    /// replacement is the config's own text, which the control-character policy leaves alone), other
    /// control characters as `controlCharacters` says.
    public func data(_ bytes: [UInt8]) -> [UInt8] {
        var exceptions: [UInt8: [UInt8]] = [:]
        if controlCharacters == .drop {
            for kept in keptByDrop { exceptions[kept] = [kept] }
        }
        if case .replace(let replacement) = gs1Separator { exceptions[0x1D] = replacement }
        return controlCharacters.apply(to: bytes, except: exceptions)
    }

    /// Parses C-style escapes in config text: `\r \n \t \\ \xHH` and `<GS>`-style names (GS, RS, EOT, ETX, STX, ESC).
    public static func unescape(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var characters = Array(text.unicodeScalars)[...]
        let names: [String: UInt8] = ["STX": 0x02, "ETX": 0x03, "EOT": 0x04, "ESC": 0x1B, "GS": 0x1D, "RS": 0x1E, "CR": 0x0D, "LF": 0x0A, "TAB": 0x09]
        while let scalar = characters.popFirst() {
            if scalar == "<", let close = characters.firstIndex(of: ">"), let byte = names[String(String.UnicodeScalarView(characters[..<close]))] {
                bytes.append(byte)
                characters = characters[characters.index(after: close)...]
                continue
            }
            guard scalar == "\\" else {
                bytes += Array(String(scalar).utf8)
                continue
            }
            switch characters.popFirst() {
            case "r": bytes.append(0x0D)
            case "n": bytes.append(0x0A)
            case "t": bytes.append(0x09)
            case "\\": bytes.append(0x5C)
            case "x":
                guard characters.count >= 2, let byte = UInt8(String(String.UnicodeScalarView(characters.prefix(2))), radix: 16) else { return nil }
                bytes.append(byte)
                characters = characters.dropFirst(2)
            default: return nil
            }
        }
        return bytes
    }
}
