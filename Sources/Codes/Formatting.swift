import Documents

/// What an output (or the socket) does to a read's data before framing it: the GTIN options first,
/// then an ordered list of rules, the first whose criteria match acting on the data, in the manner
/// of Zebra's Advanced Data Formatting and Honeywell's Data Formatter. Pure: a read in, data out.
public struct Formatting: Sendable, Hashable {
    /// What becomes of a code no rule matches.
    public enum Unmatched: String, Sendable, Hashable, CaseIterable {
        case send, drop
    }

    public var gtin = GTINOptions()
    public var rules: [FormatRule] = []
    public var unmatched = Unmatched.send

    public init() {}

    /// Whether every read goes out as decoded.
    public var isIdentity: Bool { gtin.isDefault && rules.isEmpty && unmatched == .send }

    /// The data as people and the socket's lines show it (UTF-8, else Latin-1, as `Read.shownText`),
    /// or nil when a rule sends it as nothing. Without formatting, the read's own `shownText`.
    /// A document whose raw data is withheld shows its fields (`name=value ...`) or its template.
    public func shownText(for read: Read) -> String? {
        if read.rawWithheld == true {
            guard let formatted = apply(to: read) else { return nil }
            return formatted.verbatim ? String(decoding: formatted.bytes, as: UTF8.self) : read.documentSummary
        }
        guard !isIdentity else { return read.shownText }
        return apply(to: read).map { String(validating: $0.bytes, as: UTF8.self) ?? LegacyText.latin1($0.bytes) }
    }

    /// The data and AIM identifier to send for `read`, or nil when a rule (or `unmatched: drop`)
    /// sends it as nothing. `verbatim` data was made by an `id_template`: the control characters in
    /// it are the config's separator and terminator.
    public func apply(to read: Read) -> (bytes: [UInt8], aim: String, verbatim: Bool)? {
        let (bytes, aim) = gtin.apply(to: read)
        guard !rules.isEmpty || unmatched == .drop else { return (bytes, aim, false) }
        let data = FormatRule.Subject(bytes)
        guard let rule = rules.first(where: { $0.criteria.matches(data, of: read) }) else {
            return unmatched == .send ? (bytes, aim, false) : nil
        }
        return rule.apply(to: data, of: read).map { ($0.bytes, aim, $0.verbatim) }
    }
}

/// One formatting rule: criteria that must all hold, and the actions done, in order, when they do.
public struct FormatRule: Sendable, Hashable {
    /// What a code must be for the rule to act on it; a criterion left nil always holds.
    public struct Criteria: Sendable, Hashable {
        public var symbologies: Set<Symbology>?
        /// The data's length in characters (bytes for data that is not UTF-8), after the GTIN options.
        public var minLength: Int?
        public var maxLength: Int?
        /// Text the data starts with.
        public var prefix: String?
        /// A regular expression (RE2 syntax) found anywhere in the data; anchor it with ^ and $.
        public var pattern: RE2Pattern?
        /// A GS1 AI that the code's GS1 data (element string or Digital Link) holds.
        public var ai: String?
        /// The kind of kiosk document the code holds.
        public var document: KioskDocument.Kind?

        public init() {}

        func matches(_ data: FormatRule.Subject, of read: Read) -> Bool {
            if let symbologies, !symbologies.contains(read.symbologyID) { return false }
            if let minLength, data.scalars.count < minLength { return false }
            if let maxLength, data.scalars.count > maxLength { return false }
            if let prefix, !data.text.hasPrefix(prefix) { return false }
            if let pattern, !pattern.matches(data.utf8) { return false }
            if let ai, read.gs1?.contains(where: { $0.ai == ai }) != true { return false }
            if let document, read.document?.kind != document { return false }
            return true
        }
    }

    /// What a rule does to the data.
    public enum Action: Sendable, Hashable {
        /// Sends the code as nothing (and ends the rule).
        case drop
        case stripLeading(Int)
        case stripTrailing(Int)
        /// Pads to at least `length` characters with `with`, on the left or the right.
        case pad(length: Int, with: Unicode.Scalar, left: Bool)
        /// Replaces every match of a regular expression; `$0`...`$9` in the replacement stand for groups.
        case replace(pattern: RE2Pattern, with: String)
        /// Replaces the data with the value of one GS1 AI.
        case takeAI(String)
        case prefix([UInt8])
        case suffix([UInt8])
        case upperCase
        /// Replaces the data with a kiosk document's fields (`id_template`); data that is no
        /// document is left as it is.
        case template(DocumentTemplate)
    }

    public var criteria: Criteria
    public var actions: [Action]

    public init(criteria: Criteria, actions: [Action]) {
        self.criteria = criteria
        self.actions = actions
    }

    /// The data after the actions, or nil when one of them is `drop`.
    func apply(to start: Subject, of read: Read) -> Subject? {
        var data = start
        for action in actions {
            switch action {
            case .drop:
                return nil
            case .stripLeading(let count):
                data.scalars.removeFirst(min(count, data.scalars.count))
            case .stripTrailing(let count):
                data.scalars.removeLast(min(count, data.scalars.count))
            case .pad(let length, let scalar, let left):
                let padding = Array(repeating: scalar, count: max(0, length - data.scalars.count))
                data.scalars = left ? padding + data.scalars : data.scalars + padding
            case .replace(let pattern, let replacement):
                let text = data.utf8
                let replaced = pattern.replacingMatches(in: text) { Self.substitute(replacement, $0, in: text) }
                data.scalars = Array(String(decoding: replaced, as: UTF8.self).unicodeScalars)
            case .takeAI(let ai):
                data.scalars = Array((read.gs1?.first { $0.ai == ai }?.value ?? "").unicodeScalars)
            case .prefix(let bytes):
                data.scalars = Subject(bytes).scalars + data.scalars
            case .suffix(let bytes):
                data.scalars += Subject(bytes).scalars
            case .upperCase:
                data.scalars = Array(data.text.uppercased().unicodeScalars)
            case .template(let template):
                guard let document = read.document else { break }
                data = Subject(template.render(document))
                data.verbatim = true
            }
        }
        return data
    }

    /// `template` with `$0`...`$9` replaced by the match's groups (a group that did not take part is
    /// empty), as UTF-8. `$` before anything else, or before a group the pattern lacks, stays as it is.
    private static func substitute(_ template: String, _ match: RE2Pattern.Match, in text: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var scalars = template.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if scalar == "$", let next = scalars.first, let group = Int(String(next)), group < match.groups.count {
                scalars.removeFirst()
                if let range = match.groups[group] { result += text[range] }
            } else {
                result += String(scalar).utf8
            }
        }
        return result
    }

    /// Data as rules see it: characters of UTF-8 text, or for other data each byte as a Latin-1
    /// character, so that counts, lengths, padding and regexes work on characters either way.
    struct Subject {
        var scalars: [Unicode.Scalar]
        let isText: Bool
        /// Made by a template from a document's fields: its control characters are the config's.
        var verbatim = false

        init(_ bytes: [UInt8]) {
            if let text = String(validating: bytes, as: UTF8.self) {
                scalars = Array(text.unicodeScalars)
                isText = true
            } else {
                scalars = bytes.map { Unicode.Scalar($0) }
                isText = false
            }
        }

        var text: String { String(String.UnicodeScalarView(scalars)) }

        /// The characters as UTF-8, as regexes see them: a byte of binary data above 0x7F is two
        /// bytes here, the UTF-8 of its Latin-1 character (`\xFF` in a pattern matches byte 0xFF).
        var utf8: [UInt8] { Array(text.utf8) }

        /// Back to bytes: UTF-8, or Latin-1 for binary data while every character fits a byte.
        var bytes: [UInt8] {
            if !isText, scalars.allSatisfy({ $0.value <= 0xFF }) { return scalars.map { UInt8($0.value) } }
            return Array(text.utf8)
        }
    }
}
