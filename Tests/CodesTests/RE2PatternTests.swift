import Codes
import Testing

/// The formatting rules' regexes through RE2: linear time, groups, anchors, UTF-8, and what RE2
/// refuses.
@Suite struct RE2PatternTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Through the throwing init, as the config reader compiles (`RE2Pattern("...")` would take
    /// the literal init).
    static func compiled(_ source: String) throws(RE2Pattern.Error) -> RE2Pattern { try RE2Pattern(source) }

    static func replacing(_ pattern: RE2Pattern, in text: String, with replacement: String) -> String {
        let replaced = pattern.replacingMatches(in: bytes(text)) { _ in bytes(replacement) }
        return String(decoding: replaced, as: UTF8.self)
    }

    /// A backtracking engine tries every split of the a's between `a` and `aa` (Fibonacci many: 10^8
    /// for 40, forever for 100 000) before it gives up; RE2 reads each byte once. So this test only
    /// needs to finish.
    @Test(arguments: [40, 100_000])
    func aPatternThatBacktracksExponentiallyFailsInLinearTime(count: Int) throws {
        let pattern = try Self.compiled("(a|aa)+b")
        let text = [UInt8](repeating: UInt8(ascii: "a"), count: count)
        #expect(!pattern.matches(text))
        #expect(pattern.firstMatch(in: text) == nil)
        #expect(pattern.matches(text + [UInt8(ascii: "b")]))
        #expect(pattern.replacingMatches(in: text) { _ in [] } == text)
    }

    @Test func groupsAreByteRangesAndAGroupThatDidNotTakePartIsNil() throws {
        let pattern = try Self.compiled("([A-Z]+)(\\d+)|(-)")
        #expect(pattern.groupCount == 3)
        let match = try #require(pattern.firstMatch(in: Self.bytes("x LOT42-")))
        #expect(match.range == 2..<7)
        #expect(match.groups == [2..<7, 2..<5, 5..<7, nil])
        let dash = try #require(pattern.firstMatch(in: Self.bytes("x LOT42-"), from: 7))
        #expect(dash.groups == [7..<8, nil, nil, 7..<8])
        // Only $0 to $9 exist for a rule: the first ten spans.
        let eleven = try Self.compiled(String(repeating: "(a)", count: 11))
        #expect(eleven.groupCount == 11 && eleven.firstMatch(in: Self.bytes(String(repeating: "a", count: 11)))?.groups.count == 10)
    }

    @Test func anchorsSeeTheWholeTextWhenTheSearchStartsLater() throws {
        #expect(try Self.compiled("^abc$").matches(Self.bytes("abc")))
        #expect(try !Self.compiled("^abc$").matches(Self.bytes("xabc")))
        #expect(try !Self.compiled("^abc$").matches(Self.bytes("abc\n")), "$ is the very end, as in Swift Regex")
        #expect(try Self.compiled("(?m)^b$").matches(Self.bytes("a\nb\nc")))
        // A later search keeps the text before it: ^ matches once, \b only at word edges.
        #expect(Self.replacing("^a", in: "aaa", with: "-") == "-aa")
        #expect(Self.replacing("\\b", in: "ab cd", with: "|") == "|ab| |cd|")
        #expect(try Self.compiled("\\bcd").firstMatch(in: Self.bytes("abcd cd"), from: 1)?.range == 5..<7)
    }

    @Test func emptyMatchesAreReplacedAsSwiftRegexReplacesThem() throws {
        let cases = [("x*", "abc"), ("a*", "baaac"), ("a*?", "baaac"), ("", "ab"), ("a|", "bab"), ("$", "ab"), ("-", "12-34-56")]
        for (pattern, text) in cases {
            #expect(Self.replacing(try Self.compiled(pattern), in: text, with: "<>") == text.replacing(try Regex(pattern), with: "<>"), "\(pattern) on \(text)")
        }
    }

    @Test func utf8TextIsMatchedByCharacter() throws {
        #expect(try Self.compiled("^.{3}$").matches(Self.bytes("äöü")), "a character, not a byte")
        #expect(try Self.compiled("^\\p{Greek}+$").matches(Self.bytes("αβγ")))
        #expect(try Self.compiled("(?i)^straße$").matches(Self.bytes("STRAßE")))
        #expect(Self.replacing("x*", in: "äb", with: "-") == "-ä-b-", "an empty match moves on by a character")
        #expect(Self.replacing("é", in: "café crème", with: "e") == "cafe crème")
        // Unlike Swift Regex, \d is ASCII only (README, formatting rules).
        #expect(try !Self.compiled("\\d").matches(Self.bytes("١")) && Self.compiled("\\p{Nd}").matches(Self.bytes("١")))
    }

    @Test func patternsRE2RefusesSayWhy() throws {
        let cases: [(String, String, String?)] = [
            ("(a", "missing ): (a", nil),
            ("(a)\\1", "invalid escape sequence: \\1", "RE2 has no backreferences"),
            ("(?<name>a)\\k<name>", "invalid perl operator: (?<", "RE2 has no lookbehind, and names a group (?P<name>...)"),
            ("a(?=b)", "invalid perl operator: (?=", "RE2 has no lookahead"),
            ("(?<!a)b", "invalid perl operator: (?<", "RE2 has no lookbehind, and names a group (?P<name>...)"),
            ("(?>a+)b", "invalid perl operator: (?>", "RE2 has no atomic groups"),
            ("a++", "bad repetition operator: ++", "RE2 has no possessive quantifiers"),
            ("\\pL{1000}", "pattern too large - compile failed", "it needs more than the 1 MiB RE2 may use for a pattern"),
        ]
        for (pattern, message, hint) in cases {
            let error = #expect(throws: RE2Pattern.Error.self) { try Self.compiled(pattern) }
            #expect(error?.message == message, "\(pattern)")
            #expect(error?.hint == hint, "\(pattern)")
        }
        #expect(try Self.compiled("(?P<lot>[0-9]+)").groupCount == 1, "RE2's spelling of a named group")
    }

    @Test func aPatternIsItsSourceAndServesManyThreads() async throws {
        let pattern: RE2Pattern = "^[0-9]{13}$"
        #expect(pattern == (try Self.compiled("^[0-9]{13}$")) && pattern.description == "^[0-9]{13}$")
        #expect(Set([pattern, "^[0-9]{13}$"]).count == 1)
        let found = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask { (0..<500).filter { pattern.matches(Array(String(4_006_381_333_000 + task * 500 + $0).utf8)) }.count }
            }
            return await group.reduce(0, +)
        }
        #expect(found == 4000)
    }
}
