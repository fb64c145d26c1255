import CRE2

/// A regular expression compiled once by RE2, which finds a match in time linear in the data: a
/// rule's pattern cannot stall an output, however the pattern or the code is made (a backtracking
/// engine takes exponential time for `(a|aa)+b` on a row of `a`s). RE2 has no backreferences and
/// no lookaround, which is what makes that possible; such a pattern does not compile.
///
/// Text is UTF-8; a match and its groups are byte ranges, always on character boundaries.
/// Safe to share between threads (RE2's matching is const and thread-safe).
public struct RE2Pattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let source: String
    private let program: Program

    /// Bytes RE2 may use for one pattern's compiled program and DFA caches. Rule patterns take a
    /// few KiB; one that needs more (such as `\pL{1000}`) is refused, and a search whose DFA cache
    /// fills falls back to RE2's NFA, which is slower but still linear.
    public static let maxMemory = 1 << 20

    /// Why RE2 refused a pattern.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// RE2's message, e.g. `missing ): (a`.
        public let message: String
        /// Why, when RE2's message alone would puzzle: what Swift Regex (or PCRE) has and RE2 does
        /// not, or the memory bound.
        public let hint: String?

        public var description: String { hint.map { "\(message) (\($0))" } ?? message }
    }

    /// Compiles `source`, or throws RE2's reason.
    public init(_ source: String) throws(Error) {
        var options = cre2_options()
        options.max_mem = Int64(Self.maxMemory)
        // The error is thrown as a value; RE2 would also print it to the daemon's stderr.
        options.log_errors = false
        var text = source
        let compiled = text.withUTF8 { utf8 in utf8.withMemoryRebound(to: CChar.self) { cre2_new($0.baseAddress, $0.count, options) } }
        guard let compiled else { throw Error(message: "out of memory compiling the pattern", hint: nil) }
        program = Program(compiled)
        self.source = source
        let code = Int(cre2_error_code(compiled))
        guard code == CRE2_NO_ERROR else {
            let hint = Self.hint(code: code, fault: String(cString: cre2_error_arg(compiled)))
            throw Error(message: String(cString: cre2_error(compiled)), hint: hint)
        }
    }

    /// The number of capturing groups, `(...)`.
    /// The number of capturing groups, `(...)`.
    public var groupCount: Int { Int(cre2_group_count(program.regexp)) }

    public var description: String { source }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    /// A match found in UTF-8 text: byte ranges of the whole match (group 0) and of groups 1 to 9.
    public struct Match: Sendable {
        /// nil for a group that did not take part in the match.
        public let groups: [Range<Int>?]
        public var range: Range<Int> { groups[0]! }
    }

    /// Whether the pattern matches anywhere in `utf8`.
    public func matches(_ utf8: [UInt8]) -> Bool {
        utf8.withUnsafeBufferPointer { text in
            text.withMemoryRebound(to: CChar.self) { cre2_match(program.regexp, $0.baseAddress, $0.count, 0, nil, 0) }
        }
    }

    /// The first match in `utf8` that starts at or after byte `start`, with up to 9 groups.
    public func firstMatch(in utf8: [UInt8], from start: Int = 0) -> Match? {
        let count = min(groupCount + 1, Int(CRE2_MAX_SPANS))
        var spans = [cre2_span](repeating: cre2_span(), count: count)
        let found = utf8.withUnsafeBufferPointer { text in
            text.withMemoryRebound(to: CChar.self) { cre2_match(program.regexp, $0.baseAddress, $0.count, start, &spans, Int32(count)) }
        }
        guard found else { return nil }
        return Match(groups: spans.map { $0.start < 0 ? nil : $0.start..<$0.end })
    }

    /// `utf8` with every match replaced by what `replacement` makes of it, left to right, as Swift's
    /// `replacing(_:with:)` does: an empty match counts too (after a longer one as well), and the
    /// search then goes on one character later.
    public func replacingMatches(in utf8: [UInt8], with replacement: (Match) -> [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var copied = 0
        var start = 0
        while start <= utf8.count, let match = firstMatch(in: utf8, from: start) {
            let range = match.range
            result += utf8[copied..<range.lowerBound]
            result += replacement(match)
            copied = range.upperBound
            start = range.upperBound
            if range.isEmpty {
                guard start < utf8.count else { break }
                start += Self.characterLength(utf8[start])
            }
        }
        result += utf8[min(copied, utf8.count)...]
        return result
    }

    /// The length of the UTF-8 sequence that `lead` starts (1 for a byte that starts none).
    private static func characterLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: 4
        case 0xE0...: 3
        case 0xC0...: 2
        default: 1
        }
    }

    /// What RE2 lacks that a pattern written for Swift Regex may use, judged by the part of the
    /// pattern RE2 stopped at (`fault`), or the memory bound.
    private static func hint(code: Int, fault: String) -> String? {
        if code == CRE2_ERROR_PATTERN_TOO_LARGE { return "it needs more than the \(maxMemory >> 20) MiB RE2 may use for a pattern" }
        return switch fault {
        case "(?=", "(?!": "RE2 has no lookahead"
        case "(?<": "RE2 has no lookbehind, and names a group (?P<name>...)"
        case "(?>": "RE2 has no atomic groups"
        case "*+", "++", "?+": "RE2 has no possessive quantifiers"
        case "\\1", "\\2", "\\3", "\\4", "\\5", "\\6", "\\7", "\\8", "\\9", "\\k": "RE2 has no backreferences"
        default: nil
        }
    }

    /// Owns the compiled regexp. RE2 documents its matching as thread-safe (const methods, a locked
    /// DFA cache), and nothing changes the regexp after init, hence unchecked Sendable.
    private final class Program: @unchecked Sendable {
        let regexp: OpaquePointer

        init(_ regexp: OpaquePointer) { self.regexp = regexp }

        deinit { cre2_delete(regexp) }
    }
}

extension RE2Pattern: ExpressibleByStringLiteral {
    /// A pattern written in the code, which must compile (as a Swift `Regex` literal must).
    public init(stringLiteral source: String) {
        do {
            try self.init(source)
        } catch {
            preconditionFailure("RE2 rejects the literal pattern \(source): \(error)")
        }
    }
}
