import Codes
import Foundation
import Imaging
import ScannerTestSupport
import Testing

/// The GTIN options and the formatting rules, on reads made from symbols.
@Suite struct FormattingTests {
    static func read(_ symbology: Symbology, _ text: String, gs1: Bool = false) -> Read {
        Read.sample(symbology, text, gs1: gs1)
    }

    static func formatted(_ read: Read, _ formatting: Formatting) -> String? {
        formatting.apply(to: read).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// GS1 General Specifications 5.2.2.4.2: one example for each zero-suppression rule.
    @Test(arguments: [
        ("01234505", "012000003455"), ("01234514", "012100003454"), ("01234523", "012200003453"),
        ("01234531", "012300000451"), ("01234543", "012340000053"), ("01234558", "012345000058"),
        ("01234596", "012345000096"), ("11234593", "112345000093"),
    ])
    func upceExpandsByEachRule(upce: String, upca: String) {
        #expect(GTINOptions.expandUPCE(upce) == upca)
        #expect(GS1.hasValidCheckDigit(upca), "each example's check digit holds for the expanded number")
    }

    @Test func upceThatCannotBeExpandedIsRefused() {
        #expect(GTINOptions.expandUPCE("21234565") == nil, "number system 2 is not UPC-E")
        #expect(GTINOptions.expandUPCE("0123456") == nil)
    }

    @Test func defaultsSendEveryCodeAsPrinted() {
        let formatting = Formatting()
        #expect(formatting.isIdentity)
        for (symbology, text) in [(Symbology.upca, "012345678905"), (.upce, "01234565"), (.ean8, "96385074"), (.ean13, "4006381333931")] {
            let result = formatting.apply(to: Self.read(symbology, text))
            #expect(result.map { String(decoding: $0.bytes, as: UTF8.self) } == text)
            #expect(result?.aim == symbology.aimIdentifier(gs1: false))
        }
    }

    @Test(arguments: [
        (Symbology.upca, "012345678905", "13", "0012345678905", "]E0"),
        (.upce, "01234565", "12", "012345000065", "]E0"),
        (.upce, "01234565", "13", "0012345000065", "]E0"),
        (.ean8, "96385074", "13", "0000096385074", "]E0"),
        (.ean8, "96385074", "14", "00000096385074", "]E4"),
    ])
    func eachGTINOptionRewritesItsSymbology(symbology: Symbology, text: String, option: String, expected: String, aim: String) {
        var formatting = Formatting()
        switch symbology {
        case .upca: formatting.gtin.upca = GTINOptions.UPCA(rawValue: option)!
        case .upce: formatting.gtin.upce = GTINOptions.UPCE(rawValue: option)!
        default: formatting.gtin.ean8 = GTINOptions.EAN8(rawValue: option)!
        }
        let result = formatting.apply(to: Self.read(symbology, text))
        #expect(result.map { String(decoding: $0.bytes, as: UTF8.self) } == expected)
        #expect(result?.aim == aim)
        // Other symbologies are left alone.
        #expect(Self.formatted(Self.read(.ean13, "4006381333931"), formatting) == "4006381333931")
    }

    @Test func checkDigitStripsTheLastDigitOfEANAndUPCOnly() {
        var formatting = Formatting()
        formatting.gtin.checkDigit = false
        formatting.gtin.upce = .upca
        #expect(Self.formatted(Self.read(.ean13, "4006381333931"), formatting) == "400638133393")
        #expect(Self.formatted(Self.read(.upce, "01234565"), formatting) == "01234500006")
        #expect(Self.formatted(Self.read(.code128, "ABC1"), formatting) == "ABC1")
    }

    @Test func aDigitalLinkGoesOutAsItsElementString() throws {
        var formatting = Formatting()
        formatting.gtin.digitalLink = .elementString
        let link = Self.read(.qr, "https://example.com/01/09506000134352/10/ABC123/21/S1?17=261231&3103=000195")
        #expect(link.gs1Source == "digital-link")
        let result = try #require(formatting.apply(to: link))
        // (01) and (17) have predefined lengths; (10) and (21) are ended by GS unless last.
        #expect(String(decoding: result.bytes, as: UTF8.self) == "0109506000134352" + "10ABC123\u{1D}" + "21S1\u{1D}" + "17261231" + "3103000195")
        #expect(result.aim == "]Q3")
        // The element string parses back to the same elements.
        #expect(try GS1.parse(String(decoding: result.bytes, as: UTF8.self), currentYear: 2026) == link.gs1)
        // A URL that is no Digital Link, and a DataMatrix one.
        #expect(Self.formatted(Self.read(.qr, "https://example.com/x"), formatting) == "https://example.com/x")
        #expect(formatting.apply(to: Self.read(.datamatrix, "https://id.gs1.org/01/09506000134352"))?.aim == "]d2")
    }

    // MARK: Rules

    static func rule(_ criteria: (inout FormatRule.Criteria) -> Void, _ actions: [FormatRule.Action]) -> FormatRule {
        var built = FormatRule.Criteria()
        criteria(&built)
        return FormatRule(criteria: built, actions: actions)
    }

    static func apply(_ actions: [FormatRule.Action], to text: String, symbology: Symbology = .code128) -> String? {
        var formatting = Formatting()
        formatting.rules = [rule({ _ in }, actions)]
        return formatted(read(symbology, text), formatting)
    }

    @Test func eachActionDoesWhatItsNameSays() {
        #expect(Self.apply([.drop], to: "ABC") == nil)
        #expect(Self.apply([.stripLeading(2)], to: "ABCDE") == "CDE")
        #expect(Self.apply([.stripLeading(9)], to: "ABC") == "")
        #expect(Self.apply([.stripTrailing(1)], to: "ABCDE") == "ABCD")
        #expect(Self.apply([.pad(length: 6, with: "0", left: true)], to: "123") == "000123")
        #expect(Self.apply([.pad(length: 6, with: "*", left: false)], to: "123") == "123***")
        #expect(Self.apply([.pad(length: 2, with: "0", left: true)], to: "123") == "123", "never shortens")
        #expect(Self.apply([.replace(pattern: "-", with: "")], to: "12-34-56") == "123456")
        #expect(Self.apply([.replace(pattern: "([A-Z]+)(\\d+)", with: "$2/$1")], to: "LOT42 X7") == "42/LOT 7/X")
        #expect(Self.apply([.prefix(Array("<".utf8)), .suffix([0x1D])], to: "x") == "<x\u{1D}")
        #expect(Self.apply([.upperCase], to: "abc-ß") == "ABC-SS")
        #expect(Self.apply([.stripLeading(1), .upperCase, .suffix(Array("!".utf8))], to: "xyz") == "YZ!", "actions run in order")
    }

    @Test func takeAIReplacesTheDataWithOneValue() {
        var formatting = Formatting()
        formatting.rules = [Self.rule({ $0.ai = "01" }, [.takeAI("01")])]
        #expect(Self.formatted(Self.read(.code128, "0109506000134352\u{1D}10B1", gs1: true), formatting) == "09506000134352")
        #expect(Self.formatted(Self.read(.qr, "https://id.gs1.org/01/09506000134352/10/B1"), formatting) == "09506000134352")
        #expect(Self.formatted(Self.read(.code128, "NOGS1"), formatting) == "NOGS1", "no (01): the rule does not match")
    }

    @Test func criteriaMustAllHoldAndTheFirstMatchingRuleWins() {
        var formatting = Formatting()
        formatting.rules = [
            Self.rule({ $0.symbologies = [.upce] }, [.stripLeading(1)]),
            Self.rule(
                {
                    $0.minLength = 3
                    $0.maxLength = 4
                    $0.prefix = "A"
                }, [.prefix(Array("short:".utf8))]),
            Self.rule({ $0.pattern = "^[0-9]+$" }, [.suffix(Array("#".utf8))]),
            Self.rule({ $0.symbologies = [.pdf417] }, [.drop]),
            Self.rule({ _ in }, [.upperCase]),
        ]
        #expect(Self.formatted(Self.read(.upce, "01234565"), formatting) == "1234565")
        #expect(Self.formatted(Self.read(.code128, "ABC"), formatting) == "short:ABC")
        #expect(Self.formatted(Self.read(.code128, "ABCDE"), formatting) == "ABCDE", "too long for rule 2, rule 5 upper-cases")
        #expect(Self.formatted(Self.read(.code128, "bcd"), formatting) == "BCD", "no prefix A")
        #expect(Self.formatted(Self.read(.code128, "12345"), formatting) == "12345#")
        #expect(Self.formatted(Self.read(.pdf417, "@\nANSI 636000"), formatting) == nil)
    }

    @Test func unmatchedCodesAreSentOrDropped() {
        var formatting = Formatting()
        formatting.rules = [Self.rule({ $0.symbologies = [.ean13] }, [.stripTrailing(1)])]
        #expect(Self.formatted(Self.read(.qr, "other"), formatting) == "other")
        formatting.unmatched = .drop
        #expect(!formatting.isIdentity)
        #expect(Self.formatted(Self.read(.qr, "other"), formatting) == nil)
        #expect(Self.formatted(Self.read(.ean13, "4006381333931"), formatting) == "400638133393")
    }

    @Test func rulesActOnTheDataAfterTheGTINOptions() {
        var formatting = Formatting()
        formatting.gtin.upce = .upca
        formatting.rules = [
            Self.rule(
                {
                    $0.minLength = 12
                    $0.maxLength = 12
                }, [.stripLeading(1)])
        ]
        #expect(Self.formatted(Self.read(.upce, "01234565"), formatting) == "12345000065")
    }

    @Test func binaryDataCountsBytesAndStaysBinary() throws {
        let bytes: [UInt8] = [0x00, 0xFF, 0x80, 0x41]
        let read = Read(symbol: Symbol(symbology: .qr, bytes: bytes, isGS1: false, corners: ReadTests.box), frame: Size(width: 10, height: 10))
        var formatting = Formatting()
        formatting.rules = [
            Self.rule(
                {
                    $0.minLength = 4
                    $0.maxLength = 4
                }, [.stripLeading(1), .suffix([0xFE])])
        ]
        #expect(formatting.apply(to: read)?.bytes == [0xFF, 0x80, 0x41, 0xFE])
    }

    /// The rule that froze the daemon: a backtracking engine never finished `(a|aa)+b` on a Code 128
    /// of 40 a's. Through RE2 the criterion does not hold and the replace changes nothing.
    @Test func aBacktrackingPatternDoesNotStallARule() {
        var formatting = Formatting()
        formatting.rules = [
            Self.rule({ $0.pattern = "(a|aa)+b" }, [.drop]),
            Self.rule({ _ in }, [.replace(pattern: "(a|aa)+b", with: "x"), .suffix(Array("!".utf8))]),
        ]
        for count in [40, 100_000] {
            let text = String(repeating: "a", count: count)
            #expect(Self.formatted(Self.read(.code128, text), formatting) == text + "!")
        }
        #expect(Self.formatted(Self.read(.code128, "aaab"), formatting) == nil)
    }

    @Test func replaceSubstitutesGroupsAndLeavesOtherDollarsAlone() {
        #expect(Self.apply([.replace(pattern: "(a)|(b)", with: "[$1$2]")], to: "ab") == "[a][b]", "a group that did not take part is empty")
        #expect(Self.apply([.replace(pattern: "(\\d+)", with: "$0:$1:$2:$")], to: "x42") == "x42:42:$2:$", "no group 2: as written")
        #expect(Self.apply([.replace(pattern: "^(\\d{3})(\\d+)$", with: "$2-$1")], to: "4006381") == "6381-400")
        #expect(Self.apply([.replace(pattern: "ü", with: "ue")], to: "Müller") == "Mueller")
    }

    /// Data that is not UTF-8 is matched as Latin-1 characters, one per byte: `\xFF` is the byte 0xFF.
    @Test func regexesMatchBinaryDataByteForCharacter() throws {
        let bytes: [UInt8] = [0x00, 0xFF, 0x80, 0x41]
        let read = Read(symbol: Symbol(symbology: .qr, bytes: bytes, isGS1: false, corners: ReadTests.box), frame: Size(width: 10, height: 10))
        func sent(_ rule: FormatRule) -> [UInt8]? {
            var formatting = Formatting()
            formatting.rules = [rule]
            formatting.unmatched = .drop
            return formatting.apply(to: read)?.bytes
        }
        #expect(sent(Self.rule({ $0.pattern = "^.{4}$" }, [.suffix([0x0D])])) == bytes + [0x0D], "a character is a byte")
        #expect(sent(Self.rule({ $0.pattern = "^\\x00\\xFF\\x{80}A$" }, [.stripLeading(1)])) == [0xFF, 0x80, 0x41])
        #expect(sent(Self.rule({ $0.pattern = "\\xC3" }, [.suffix([0x0D])])) == nil, "unmatched: 0xC3 (ÿ's UTF-8) is not in the data")
        #expect(sent(Self.rule({ _ in }, [.replace(pattern: "[\\x80-\\xFF]+", with: "?")])) == [0x00, 0x3F, 0x41], "still Latin-1 out")
    }
}
