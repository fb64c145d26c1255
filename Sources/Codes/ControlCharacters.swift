/// What an output does with the control characters in a code's data, as commercial scanners'
/// control-character mapping does: a code can hold CR, LF, TAB, ESC sequences and the like, and a
/// keyboard wedge that types an Enter in the middle of a code submits the host's form. Pure: bytes in,
/// bytes out.
///
/// Control characters are C0 (0x00–0x1F) and DEL (0x7F) in any data, and C1 (U+0080–U+009F) in
/// UTF-8 text, where a terminal takes U+009B as CSI. In data that is not UTF-8 the bytes 0x80–0x9F
/// are left alone: they are Windows-1252 letters, Shift_JIS lead bytes or binary payload there.
/// Every other character passes unchanged, so data without control characters is sent as it is
/// under every policy.
public enum ControlCharacters: Sendable, Hashable {
    /// Sent as they are.
    case keep
    /// Left out.
    case drop
    /// Each one replaced by these bytes.
    case replace([UInt8])
    /// Caret notation, as `cat -v` shows them: `^M` for CR, `^[` for ESC, `^?` for DEL, `M-^[` for U+009B.
    case caret
    /// C-style escapes: `\r`, `\n`, `\t`, `\a`, `\b`, `\v`, `\f`, else `\xHH` (`\x1b`); `\u0085` for C1.
    case escape

    /// The policies without an argument, by their config name.
    public static let named: [String: ControlCharacters] = ["keep": .keep, "drop": .drop, "caret": .caret, "escape": .escape]

    /// The policies as the config writes them, for messages.
    public static let names = "keep, drop, caret, escape, or {replace: TEXT}"

    /// Whether `scalar` counts as a control character in text: C0, DEL or C1.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `bytes` with each control character as the policy says; `exceptions` gives fixed bytes for
    /// some C0 characters whatever the policy (GS as the GS1 separator option says, or kept for a
    /// keyboard wedge to type as its `gs_key`). UTF-8 text is taken character by character, other
    /// data byte by byte.
    public func apply(to bytes: [UInt8], except exceptions: [UInt8: [UInt8]] = [:]) -> [UInt8] {
        if self == .keep && exceptions.isEmpty { return bytes }
        if let text = String(validating: bytes, as: UTF8.self) {
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            for scalar in text.unicodeScalars {
                if scalar.value < 0x80, let fixed = exceptions[UInt8(scalar.value)] {
                    result += fixed
                } else if Self.isControl(scalar) {
                    result += rendering(scalar)
                } else {
                    result += String(scalar).utf8
                }
            }
            return result
        }
        return bytes.flatMap { byte -> [UInt8] in
            if let fixed = exceptions[byte] { return fixed }
            // Outside UTF-8, 0x80–0x9F are not C1 (see the type's comment).
            return byte < 0x20 || byte == 0x7F ? rendering(Unicode.Scalar(byte)) : [byte]
        }
    }

    /// `text` with each control character (C0, DEL, C1) as the policy says.
    public func apply(to text: String) -> String {
        guard self != .keep, text.unicodeScalars.contains(where: Self.isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if Self.isControl(scalar) {
                result += String(decoding: rendering(scalar), as: UTF8.self)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// What one control character becomes.
    private func rendering(_ scalar: Unicode.Scalar) -> [UInt8] {
        switch self {
        case .keep: return Array(String(scalar).utf8)
        case .drop: return []
        case .replace(let bytes): return bytes
        case .caret: return Array(Self.caret(scalar.value).utf8)
        case .escape: return Array(Self.escape(scalar.value).utf8)
        }
    }

    private static func caret(_ value: UInt32) -> String {
        switch value {
        case 0x7F: "^?"
        case 0x80...: "M-" + caret(value - 0x80)
        default: "^" + String(UnicodeScalar(UInt8(value + 0x40)))
        }
    }

    private static let shortEscapes: [UInt32: String] = [
        0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r",
    ]

    private static func escape(_ value: UInt32) -> String {
        if let short = shortEscapes[value] { return short }
        let hex = String(value, radix: 16)
        // A C1 character is a code point, not the byte: `\xHH` would name one byte of its UTF-8.
        return value >= 0x80 ? "\\u00" + hex : "\\x" + (hex.count < 2 ? "0" : "") + hex
    }
}
