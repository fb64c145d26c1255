import Codes
import ScannerTestSupport
import Testing

/// The control-character policy on its own, and inside an output's framing.
@Suite struct ControlCharactersTests {
    /// Issue #33's code: CR LF, a clear-screen and a window-title sequence, BEL, TAB, ETX, DEL, NUL.
    static let hostile = "AB\r\nCD\u{1B}[2J\u{1B}]0;pwn\u{07}\t\u{03}\u{7F}\u{00}Z"

    @Test(arguments: [
        (ControlCharacters.keep, hostile),
        (.drop, "ABCD[2J]0;pwnZ"),
        (.replace(Array("?".utf8)), "AB??CD?[2J?]0;pwn?????Z"),
        (.replace([]), "ABCD[2J]0;pwnZ"),
        (.caret, "AB^M^JCD^[[2J^[]0;pwn^G^I^C^?^@Z"),
        (.escape, #"AB\r\nCD\x1b[2J\x1b]0;pwn\a\t\x03\x7f\x00Z"#),
    ])
    func eachPolicyRewritesTheHostileCode(policy: ControlCharacters, expected: String) {
        #expect(policy.apply(to: Array(Self.hostile.utf8)) == Array(expected.utf8))
        #expect(policy.apply(to: Self.hostile) == expected, "the text form agrees")
    }

    @Test(arguments: [
        (UInt32(0x00), "^@", #"\x00"#), (0x07, "^G", #"\a"#), (0x08, "^H", #"\b"#), (0x09, "^I", #"\t"#), (0x0A, "^J", #"\n"#),
        (0x0B, "^K", #"\v"#), (0x0C, "^L", #"\f"#), (0x0D, "^M", #"\r"#), (0x1B, "^[", #"\x1b"#), (0x1D, "^]", #"\x1d"#),
        (0x1F, "^_", #"\x1f"#), (0x7F, "^?", #"\x7f"#), (0x80, "M-^@", #"\u0080"#), (0x85, "M-^E", #"\u0085"#),
        (0x9B, "M-^[", #"\u009b"#), (0x9F, "M-^_", #"\u009f"#),
    ])
    func caretAndEscapeNotation(value: UInt32, caret: String, escape: String) {
        let text = "x" + String(Unicode.Scalar(value)!) + "y"
        #expect(ControlCharacters.isControl(Unicode.Scalar(value)!))
        #expect(ControlCharacters.caret.apply(to: Array(text.utf8)) == Array("x\(caret)y".utf8))
        #expect(ControlCharacters.escape.apply(to: Array(text.utf8)) == Array("x\(escape)y".utf8))
        #expect(ControlCharacters.drop.apply(to: Array(text.utf8)) == Array("xy".utf8))
    }

    static let policies: [ControlCharacters] = [.keep, .drop, .replace(Array("?".utf8)), .caret, .escape]

    /// Only control characters change: printable ASCII, Latin-1's no-break space (just past C1),
    /// other scripts, emoji, and text that looks like an escape all pass as they are.
    @Test(arguments: policies)
    func dataWithoutControlCharactersIsUnchanged(policy: ControlCharacters) {
        let printable = String((0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) })
        for text in [printable, "\u{A0}é€", "日本語", "🛒 x2", #"C:\x1b ^M"#, ""] {
            #expect(policy.apply(to: Array(text.utf8)) == Array(text.utf8), "\(text)")
            #expect(policy.apply(to: text) == text)
        }
        #expect(ControlCharacters.isControl("\u{A0}") == false && ControlCharacters.isControl(" ") == false)
    }

    /// Outside UTF-8, 0x80–0x9F are not C1: they are Windows-1252 letters, Shift_JIS lead bytes or
    /// binary. C0 and DEL are still control characters.
    @Test(arguments: policies)
    func dataThatIsNotUTF8IsTakenByteByByte(policy: ControlCharacters) {
        let bytes: [UInt8] = [0x41, 0x80, 0x85, 0x9B, 0x0D, 0xFF, 0x7F]
        let expected: [UInt8] =
            switch policy {
            case .keep: bytes
            case .drop: [0x41, 0x80, 0x85, 0x9B, 0xFF]
            case .replace: [0x41, 0x80, 0x85, 0x9B, 0x3F, 0xFF, 0x3F]
            case .caret: [0x41, 0x80, 0x85, 0x9B] + Array("^M".utf8) + [0xFF] + Array("^?".utf8)
            case .escape: [0x41, 0x80, 0x85, 0x9B] + Array(#"\r"#.utf8) + [0xFF] + Array(#"\x7f"#.utf8)
            }
        #expect(policy.apply(to: bytes) == expected)
    }

    // MARK: In the framing

    static func read(_ text: String, gs1: Bool = false) -> Read { Read.sample(gs1 ? .code128 : .qr, text, gs1: gs1) }

    /// The policy acts on the data only: prefix, AIM identifier, suffix and terminator go out as configured.
    @Test(arguments: policies)
    func theFramingTheConfigAddsGoesOut(policy: ControlCharacters) {
        var format = OutputFormat()
        format.prefix = [0x02]
        format.suffix = [0x03]
        format.terminator = .crlf
        format.aim = true
        format.controlCharacters = policy
        let data = policy.apply(to: Array(Self.hostile.utf8))
        #expect(format.bytes(for: Self.read(Self.hostile)) == [0x02] + Array("]Q1".utf8) + data + [0x03, 0x0D, 0x0A])
    }

    /// GS1 data: `01…` then lot `10ABC`, GS, then expiry `17…`.
    static let gs1 = "0109506000134352" + "10ABC\u{1D}" + "17261231"

    @Test func aKeyboardWedgeDropsControlCharactersButKeepsGSForItsGSKey() {
        let format = OutputFormat.keyboard
        #expect(format.controlCharacters == .drop && format.terminator == .cr)
        #expect(format.bytes(for: Self.read(Self.gs1, gs1: true)) == Array(Self.gs1.utf8) + [0x0D])
        #expect(format.bytes(for: Self.read("A\r\u{1D}\tB")) == Array("A\u{1D}B\r".utf8), "GS stays in any code, CR and TAB go")
        var caret = format
        caret.controlCharacters = .caret
        #expect(caret.bytes(for: Self.read("A\u{1D}B")) == Array("A^]B\r".utf8), "only drop keeps GS as it is")
    }

    @Test func aDataChannelUnderDropLosesGSUnlessTheSeparatorOptionReplacesIt() {
        var format = OutputFormat()
        format.terminator = .none
        format.controlCharacters = .drop
        #expect(format.bytes(for: Self.read(Self.gs1, gs1: true)) == Array(Self.gs1.replacing("\u{1D}", with: "").utf8))
        // The separator's replacement is the config's own text: the policy leaves even a control character in it.
        format.gs1Separator = .replace([0x1E])
        #expect(format.bytes(for: Self.read(Self.gs1 + "\r", gs1: true)) == Array(Self.gs1.replacing("\u{1D}", with: "\u{1E}").utf8))
        format.controlCharacters = .escape
        format.gs1Separator = .replace(Array("|".utf8))
        #expect(format.bytes(for: Self.read("A\u{1D}B\u{1E}")) == Array(#"A|B\x1e"#.utf8))
    }

    @Test func keepIsTheDefaultAndChangesNothing() {
        #expect(OutputFormat().controlCharacters == .keep)
        #expect(OutputFormat().bytes(for: Self.read(Self.hostile)) == Array(Self.hostile.utf8) + [0x0D, 0x0A])
    }
}
