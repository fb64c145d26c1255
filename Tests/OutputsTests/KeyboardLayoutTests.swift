import Foundation
import ScannerCore
import ScannerTestSupport
import Testing

/// Our layout tables against xkeyboard-config, read through libxkbcommon (Tests/Tools/xkbtype):
/// each character's strokes must type that character on a host with that layout.
@Suite struct KeyboardLayoutTests {
    static let xkbtype = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/tools/xkbtype").standardized.path
    /// Our layout name and xkeyboard-config's.
    static let layouts: [(KeyboardLayout, String)] = [(.us, "us"), (.uk, "gb"), (.de, "de"), (.fr, "fr")]

    /// Strokes as xkbtype reads them: "CODE:MODS", MODS 1 Shift, 2 AltGr, 4 Ctrl.
    static func strokes(_ actions: [KeyAction]) -> String {
        actions.map { action in
            guard case .stroke(let key, let modifiers) = action else { return "?" }
            let mods = (modifiers.contains(.shift) ? 1 : 0) | (modifiers.contains(.altGr) ? 2 : 0) | (modifiers.contains(.ctrl) ? 4 : 0)
            return "\(key.code):\(mods)"
        }.joined(separator: " ")
    }

    /// What the host types for each line of strokes.
    static func typed(_ lines: [String], layout: String) throws -> [String] {
        let input = try TemporaryDirectory.shared.file("strokes-\(layout)-\(UUID().uuidString.prefix(8)).txt")
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = try Tool.capture("/bin/sh", ["-c", "\"$0\" \"$1\" < \"$2\"", xkbtype, layout, input])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test(arguments: layouts)
    func everyPrintableASCIICharacterHasKeys(layout: KeyboardLayout, xkb: String) {
        let missing = (0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) }.filter { layout.actions(for: $0) == nil }
        #expect(missing.isEmpty, "\(layout.name) lacks \(missing)")
    }

    @Test(arguments: layouts)
    func everyCharacterTypesItselfOnTheHost(layout: KeyboardLayout, xkb: String) throws {
        let characters = layout.characters
        let output = try Self.typed(characters.map { Self.strokes(layout.actions(for: $0)!) }, layout: xkb)
        for (index, character) in characters.enumerated() {
            #expect(
                output[index] == String(character),
                "\(layout.name): '\(character)' typed as '\(output[index])' by \(Self.strokes(layout.actions(for: character)!))")
        }
    }

    @Test func groupSeparatorIsCtrlRightBracketAndControlCharactersAreKeys() throws {
        let typist = Typist(layout: .us)
        let (actions, missing) = typist.actions(for: Array("A\u{1D}b\r\n\t".utf8))
        #expect(missing.isEmpty)
        #expect(actions == [.stroke(.letter("a"), .shift), .stroke(.rightBrace, .ctrl), .stroke(.letter("b"), []), .stroke(.enter, []), .stroke(.tab, [])])
        #expect(try Self.typed([Self.strokes([.stroke(.rightBrace, .ctrl)])], layout: "us").first == "<ctrl-bracketright>")
    }

    @Test func charactersTheLayoutLacksAreLeftOutOrTypedAsAltCodes() {
        let dropped = Typist(layout: .us, missing: .drop).actions(for: Array("é1".utf8))
        #expect(dropped.missing == ["é"])
        #expect(dropped.actions == [.stroke(Key.digits[0], [])])
        let alt = Typist(layout: .us, missing: .altCode).actions(for: Array("é€".utf8))
        // Alt+0233 and Alt+0128 (Windows-1252) on the keypad.
        #expect(alt.actions == [.altCode([0, 2, 3, 3].map { Key.keypad[$0] }), .altCode([0, 1, 2, 8].map { Key.keypad[$0] })])
        #expect(alt.missing.isEmpty)
        #expect(Typist(layout: .fr).actions(for: Array("é".utf8)).actions == KeyboardLayout.fr.actions(for: "é"), "a layout's own key wins")
    }
}
