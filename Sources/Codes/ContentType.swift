/// What the text of a code is, so a POS can route it without parsing it again.
public enum ContentType: String, Sendable, Hashable, Codable, CaseIterable {
    case url, email, tel, sms, geo, wifi, contact, gs1, plain
    /// The bytes are not valid UTF-8.
    case binary

    /// Classifies a code's text by the prefixes and shapes that phones and scanners recognise.
    public static func classify(text: String?, isGS1: Bool) -> ContentType {
        if isGS1 { return .gs1 }
        guard let text else { return .binary }
        let lowered = text.lowercased()
        for (prefixes, type) in prefixTable where prefixes.contains(where: lowered.hasPrefix) {
            return type
        }
        if lowered.hasPrefix("www."), !lowered.contains(" ") { return .url }
        if looksLikeEmailAddress(text) { return .email }
        return .plain
    }

    private static let prefixTable: [([String], ContentType)] = [
        (["http://", "https://", "ftp://", "urlto:"], .url),
        (["mailto:", "matmsg:"], .email),
        (["tel:"], .tel),
        (["sms:", "smsto:", "mms:", "mmsto:"], .sms),
        (["geo:"], .geo),
        (["wifi:"], .wifi),
        (["mecard:", "begin:vcard", "bizcard:"], .contact),
    ]

    /// A bare address: one "@", something before it, a dot in the domain, and no spaces.
    private static func looksLikeEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        let domain = parts[1]
        guard let dot = domain.lastIndex(of: "."), dot != domain.startIndex else { return false }
        return domain[domain.index(after: dot)...].count >= 2
    }
}
