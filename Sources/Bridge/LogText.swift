/// Text from outside the bridge (a broker's payload, a spool file's name) made fit for one log line:
/// control characters, line and paragraph separators and backslashes escaped (`\n`, `\u{1b}`,
/// `\\`), invalid UTF-8 shown as U+FFFD, and cut at `limit` characters with a count of what is left
/// out. A payload can then neither forge a second log line nor fill the journal.
enum LogText {
    static func escaped(_ bytes: some Collection<UInt8>, limit: Int = 120) -> String {
        // Invalid UTF-8 becomes U+FFFD: no byte of it can act as a line break.
        let scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars
        var out = ""
        for scalar in scalars.prefix(limit) { out += escape(scalar) }
        if scalars.count > limit { out += "… (\(bytes.count) bytes in all)" }
        return out
    }

    static func escaped(_ text: String, limit: Int = 120) -> String {
        escaped(Array(text.utf8), limit: limit)
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\\": return "\\\\"
        default:
            let value = scalar.value
            // C0, DEL, C1, and the Unicode line and paragraph separators.
            if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029 {
                return "\\u{\(String(value, radix: 16))}"
            }
            return String(scalar)
        }
    }
}
