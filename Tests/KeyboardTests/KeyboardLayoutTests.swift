import Foundation
import Keyboard
import ScannerTestSupport
import Testing

/// Layouts compiled from xkeyboard-config (Keymaps) against what a host with that layout types:
/// Tests/Tools/xkbtype replays our strokes through libxkbcommon and the en_US.UTF-8 compose table,
/// as a Linux host's keyboard stack does.
@Suite struct KeyboardLayoutTests {
    /// Layouts of Latin-script countries and common variants: each types all of printable ASCII
    /// on a host with that layout, some of it through dead keys.
    static let latin = [
        "us", "uk", "de", "fr", "cz", "sk", "pl", "hu", "ch", "ch(fr)", "be", "nl", "it", "es", "pt", "br", "se", "no", "dk",
        "fi", "tr", "us(intl)", "us(dvorak)", "fr(bepo)", "ca", "latam", "jp", "de(nodeadkeys)", "ee", "lt", "lv", "si", "hr",
        "is", "ro", "gb(extd)",
    ]
    /// Layouts without Latin letters: what they cannot type is counted as missing.
    static let nonLatin = ["ru", "gr", "il", "ua"]

    static let printableASCII = (0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) }

    /// Each printable ASCII character typed alone through the Typist: either its strokes type it on
    /// the host, or the Typist counts it as missing. Returns the missing ones.
    static func checkASCII(_ name: String) throws -> [Character] {
        let typist = Typist(layout: try Keymap.compile(name))
        var missing: [Character] = []
        var lines: [String] = []
        var sent: [Character] = []
        for character in printableASCII {
            let typed = typist.actions(for: Array(String(character).utf8))
            if typed.missing == [character] {
                #expect(typed.actions.isEmpty)
                missing.append(character)
            } else {
                #expect(typed.missing.isEmpty && !typed.actions.isEmpty, "\(name): '\(character)'")
                lines.append(HostKeyboard.strokes(typed.actions))
                sent.append(character)
            }
        }
        let output = try HostKeyboard.typed(lines, layout: name)
        for (index, character) in sent.enumerated() {
            #expect(output[index] == String(character), "\(name): '\(character)' typed as '\(output[index])' by \(lines[index])")
        }
        return missing
    }

    @Test(arguments: latin)
    func everyPrintableASCIICharacterTypesItselfOnTheHost(layout: String) throws {
        let missing = try Self.checkASCII(layout)
        #expect(missing.isEmpty, "\(layout) lacks \(missing)")
    }

    @Test(arguments: nonLatin)
    func aLayoutWithoutLatinLettersCountsThemAsMissing(layout: String) throws {
        let missing = try Self.checkASCII(layout)
        #expect("abcxyz".allSatisfy(missing.contains), "\(layout): Latin letters counted as missing")
        #expect(!"0123456789".contains(where: missing.contains), "\(layout): digits typed")
    }

    @Test(arguments: ["de", "fr", "cz", "ch(fr)", "us(intl)", "fr(bepo)", "jp", "ru"])
    func everyCharacterOfTheTableTypesItself(layout: String) throws {
        let compiled = try Keymap.compile(layout)
        let characters = compiled.characters
        #expect(characters.count > 60)
        let output = try HostKeyboard.typed(characters.map { HostKeyboard.strokes(compiled.actions(for: $0)!) }, layout: layout)
        for (index, character) in characters.enumerated() {
            #expect(
                output[index] == String(character),
                "\(layout): '\(character)' typed as '\(output[index])' by \(HostKeyboard.strokes(compiled.actions(for: character)!))")
        }
    }

    @Test func deadKeysTypeThroughCompose() throws {
        // German: ^ and ` are dead keys, typed as the dead key and space.
        let de = try Keymap.compile("de")
        #expect(de.actions(for: "^") == [.stroke(.grave, []), .stroke(.space, [])])
        #expect(de.actions(for: "`") == [.stroke(.equal, .shift), .stroke(.space, [])])
        // US international: ê is the circumflex dead key (Shift+6) then e.
        let intl = try Keymap.compile("us(intl)")
        #expect(intl.actions(for: "ê") == [.stroke(Key.digits[5], .shift), .stroke(.letter("e"), [])])
        #expect(try HostKeyboard.typed([HostKeyboard.strokes(intl.actions(for: "ê")!)], layout: "us(intl)") == ["ê", ""])
    }

    @Test func keysOnlyJISAndABNT2BoardsHaveAreUsedForWhatNoOtherKeyTypes() throws {
        // Japanese: _ is Shift + the Ro key (HID International1), nowhere else.
        #expect(try Keymap.compile("jp").actions(for: "_") == [.stroke(.ro, .shift)])
        // German: < is on the ISO key; US keeps it on the comma key, which every board has.
        #expect(try Keymap.compile("de").actions(for: "<") == [.stroke(.iso102, [])])
        #expect(try Keymap.compile("us").actions(for: "<") == [.stroke(.comma, .shift)])
    }

    @Test(arguments: latin + nonLatin)
    func aGS1CodeTypesGroupSeparatorAsCtrlAndTheKeyOfRightBracket(layout: String) throws {
        let compiled = try Keymap.compile(layout)
        let typed = Typist(layout: compiled).actions(for: Array("0109501101530003\u{1D}10123".utf8))
        if compiled.actions(for: "]")?.count == 1 {
            #expect(typed.missing.isEmpty)
            #expect(try HostKeyboard.typed([HostKeyboard.strokes(typed.actions)], layout: layout).first == "0109501101530003<ctrl-bracketright>10123")
        } else {
            #expect(typed.missing.contains("\u{1D}"), "\(layout): GS with no key for ] counts as missing")
        }
    }

    @Test func charactersTheLayoutLacksAreLeftOutOrTypedAsAltCodes() throws {
        let us = try Keymap.compile("us")
        let dropped = Typist(layout: us, missing: .drop).actions(for: Array("é1".utf8))
        #expect(dropped.missing == ["é"])
        #expect(dropped.actions == [.stroke(Key.digits[0], [])])
        let alt = Typist(layout: us, missing: .altCode).actions(for: Array("é€".utf8))
        // Alt+0233 and Alt+0128 (Windows-1252) on the keypad.
        #expect(alt.actions == [.altCode([0, 2, 3, 3].map { Key.keypad[$0] }), .altCode([0, 1, 2, 8].map { Key.keypad[$0] })])
        #expect(alt.missing.isEmpty)
        let fr = try Keymap.compile("fr")
        #expect(Typist(layout: fr, missing: .altCode).actions(for: Array("é".utf8)).actions == fr.actions(for: "é"), "a layout's own key wins")
        #expect(Typist(layout: us, groupSeparator: nil).actions(for: [0x1D]) == ([], []), "gs_key: none leaves GS out")
    }

    /// `missing: unicode` types Ctrl+Shift+U, the code point in hex and Space, as GTK and IBus take
    /// it on a Linux host: the host's own keymap (xkbcommon) turns the strokes back into those keys.
    @Test(arguments: ["us", "de", "fr", "cz", "ch(fr)"])
    func charactersTheLayoutLacksCanBeTypedAsUnicodeEntries(layout: String) throws {
        let compiled = try Keymap.compile(layout)
        let lacked: [Character] = ["€", "😀", "ŋ"].filter { compiled.actions(for: $0) == nil }
        #expect(!lacked.isEmpty)
        let typed = Typist(layout: compiled, missing: .unicode).actions(for: Array(String(lacked).utf8))
        #expect(typed.missing.isEmpty)
        var entries: [[KeyAction]] = []
        for action in typed.actions {
            if case .stroke(_, let modifiers) = action, modifiers.isSuperset(of: [.ctrl, .shift]) { entries.append([]) }
            entries[entries.count - 1].append(action)
        }
        #expect(entries.count == lacked.count)
        var lines: [String] = []
        for entry in entries {
            guard case .stroke(let key, let modifiers) = entry[0] else { continue }
            lines += [HostKeyboard.strokes([.stroke(key, modifiers.subtracting([.ctrl, .shift]))]), HostKeyboard.strokes(Array(entry.dropFirst()))]
        }
        let output = try HostKeyboard.typed(lines, layout: layout)
        for (index, character) in lacked.enumerated() {
            #expect(output[2 * index] == "u", "\(layout): the entry starts on the key of u")
            #expect(output[2 * index + 1] == String(character.unicodeScalars.first!.value, radix: 16) + " ", "\(layout): \(character)")
        }
        // A layout without Latin letters cannot type the entry: the character is left out and counted.
        let ru = try Keymap.compile("ru")
        #expect(Typist(layout: ru, missing: .unicode).actions(for: Array("€".utf8)).missing == ["€"])
    }

    @Test func unknownLayoutsAndVariantsAreNamed() {
        #expect(throws: KeymapError.self) { try Keymap.compile("xx") }
        #expect(performing: { try Keymap.compile("de(nonesuch)") }, throws: { "\($0)".contains("no variant 'nonesuch'") })
        #expect(performing: { try Keymap.compile("qq") }, throws: { "\($0)".contains("no layout 'qq'") })
        #expect(performing: { try Keymap.compile("de fr") }, throws: { "\($0)".contains("not a layout name") })
    }
}
