/// GS1 Digital Link URIs, uncompressed (GS1 Digital Link Standard: URI Syntax): an http or https URI
/// on any domain whose path ends in a primary key and its qualifiers, `/01/09506000134352/10/ABC1`,
/// with more element strings as query parameters, `?17=261231&3103=000195`.
///
/// The rules are those of biip (the test oracle, `Tests/Tools/gs1-oracle.py`): path segments before
/// the first primary key are a prefix; the key's value and each qualifier's are percent-decoded; a
/// GTIN shorter than 14 digits is padded with zeros; qualifiers come in their key's order, each at
/// most once; query parameters that are AIs add element strings (the last value of a repeated one
/// counts, blank ones are left out), others are ignored. Every element is checked as an element
/// string is: length, digits, check digit, date. Not read: the compressed form, and the alphabetic
/// short names of early versions (`/gtin/`, `/lot/`), which the standard no longer uses.
public enum GS1DigitalLink {
    /// A primary key: its AI, the width its value is padded to, and the qualifiers it takes in order.
    struct Key {
        let padTo: Int?
        let qualifiers: [String]
    }

    static let keys: [String: Key] = [
        "01": Key(padTo: 14, qualifiers: ["22", "10", "21", "235"]),
        "8006": Key(padTo: nil, qualifiers: ["22", "10", "21"]),
        "8013": Key(padTo: nil, qualifiers: []),
        "8010": Key(padTo: nil, qualifiers: ["8011"]),
        "414": Key(padTo: nil, qualifiers: ["254", "7040"]),
        "415": Key(padTo: nil, qualifiers: ["8020"]),
        "417": Key(padTo: nil, qualifiers: ["7040"]),
        "8017": Key(padTo: nil, qualifiers: ["8019"]),
        "8018": Key(padTo: nil, qualifiers: ["8019"]),
        "255": Key(padTo: nil, qualifiers: []),
        "00": Key(padTo: nil, qualifiers: []),
        "253": Key(padTo: nil, qualifiers: []),
        "401": Key(padTo: nil, qualifiers: []),
        "402": Key(padTo: nil, qualifiers: []),
        "8003": Key(padTo: nil, qualifiers: []),
        "8004": Key(padTo: nil, qualifiers: ["7040"]),
    ]

    /// The element strings of a Digital Link URI.
    ///
    /// Returns nil when `text` is not shaped as one, so that other URLs stay URLs: not http or
    /// https, or no primary key in its path followed by a value of the key's shape (a GTIN of 8, 12,
    /// 13 or 14 digits, digits of the right length for other numeric keys). A news URL's `/01/05/`
    /// is no GTIN. Throws when it is shaped as one but breaks a rule, e.g. a wrong check digit.
    public static func parse(_ text: String, currentYear: Int) throws(GS1Error) -> [GS1Element]? {
        guard let uri = URIParts(text) else { return nil }
        var segments = uri.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let start = segments.firstIndex(where: { keys[$0] != nil }), start + 1 < segments.count,
            let value = try? percentDecoded(segments[start + 1]), isShaped(value, for: segments[start])
        else { return nil }
        segments.removeFirst(start)
        guard segments.count % 2 == 0 else {
            throw GS1Error(offset: 0, reason: "Digital Link path needs key/value pairs, got '/\(segments.joined(separator: "/"))'")
        }
        let decoded = try segments.map { segment throws(GS1Error) in try percentDecoded(segment) }
        let keyAI = decoded[0]
        let key = keys[keyAI]!
        var keyValue = decoded[1]
        if let width = key.padTo, keyValue.count < width { keyValue = String(repeating: "0", count: width - keyValue.count) + keyValue }
        var elements = [try GS1.element(ai: keyAI, value: keyValue, currentYear: currentYear)]
        var expected = key.qualifiers[...]
        for pair in stride(from: 2, to: decoded.count, by: 2) {
            let qualifier = decoded[pair]
            guard let position = expected.firstIndex(of: qualifier) else {
                let allowed = key.qualifiers.isEmpty ? "none" : key.qualifiers.joined(separator: ", ")
                throw GS1Error(offset: 0, reason: "Digital Link qualifier '\(qualifier)' is not one of (\(allowed)) in order after (\(keyAI))")
            }
            expected = expected[(position + 1)...]
            elements.append(try GS1.element(ai: qualifier, value: decoded[pair + 1], currentYear: currentYear))
        }
        for (ai, value) in try queryParameters(uri.query) where GS1.table[ai] != nil {
            elements.append(try GS1.element(ai: ai, value: value, currentYear: currentYear))
        }
        return elements
    }

    /// Whether `value` looks like a value of the primary key `ai`, before any check.
    static func isShaped(_ value: String, for ai: String) -> Bool {
        guard let spec = GS1.table[ai] else { return false }
        let digits = value.allSatisfy { $0.isASCII && $0.isNumber }
        if ai == "01" { return digits && [8, 12, 13, 14].contains(value.count) }
        if spec.kind == .text { return (1...spec.maxLength).contains(value.count) }
        return digits && (spec.fixedLength.map { value.count == $0 } ?? (1...spec.maxLength).contains(value.count))
    }

    /// Scheme, path and query of an http or https URI; nil for anything else.
    struct URIParts {
        let path: Substring
        let query: Substring

        init?(_ text: String) {
            let lowered = text.prefix(8).lowercased()
            let schemeLength = lowered.hasPrefix("https://") ? 8 : lowered.hasPrefix("http://") ? 7 : 0
            guard schemeLength > 0 else { return nil }
            var rest = text.dropFirst(schemeLength)
            if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
            let query = rest.firstIndex(of: "?").map { rest[rest.index(after: $0)...] } ?? ""
            if let mark = rest.firstIndex(of: "?") { rest = rest[..<mark] }
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            path = rest[slash...]
            self.query = query
        }
    }

    /// `key=value` pairs in order of each key's first appearance, with the last value of a repeated
    /// key, blank values left out, `+` as a space (as a form decoder reads them).
    static func queryParameters(_ query: Substring) throws(GS1Error) -> [(String, String)] {
        var order: [String] = []
        var values: [String: String] = [:]
        for field in query.split(whereSeparator: { $0 == "&" || $0 == ";" }) {
            guard let equals = field.firstIndex(of: "=") else { continue }
            func plusAsSpace(_ part: Substring) -> String { String(part.map { $0 == "+" ? " " : $0 }) }
            let key = try percentDecoded(plusAsSpace(field[..<equals]))
            let value = try percentDecoded(plusAsSpace(field[field.index(after: equals)...]))
            guard !value.isEmpty else { continue }
            if values[key] == nil { order.append(key) }
            values[key] = value
        }
        return order.map { ($0, values[$0]!) }
    }

    /// `%XX` sequences as the UTF-8 bytes they stand for.
    static func percentDecoded(_ text: some StringProtocol) throws(GS1Error) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw GS1Error(offset: 0, reason: "Digital Link has a broken percent escape in '\(text)'")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw GS1Error(offset: 0, reason: "Digital Link escapes are not UTF-8 in '\(text)'")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
