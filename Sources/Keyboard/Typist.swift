import Codes

/// Turns the bytes an output sends into the key actions that type them on a host layout.
/// Pure: the keyboard backends (uinput, HID gadget) only render the actions.
public struct Typist: Sendable {
    /// What to do with a character the layout has no key for.
    public enum Missing: String, Sendable, Hashable, CaseIterable {
        /// Leave it out, and count the read as typed with errors.
        case drop
        /// Type it as a Windows Alt code (Alt held, digits on the keypad), for Windows hosts.
        case altCode = "alt-code"
        /// Type its Unicode code point as GTK and IBus take it on Linux hosts: Ctrl+Shift+U, the
        /// hex digits, Space. Left out when the layout cannot type those (a layout without Latin letters).
        case unicode
    }

    public let layout: KeyboardLayout
    public let missing: Missing
    /// What GS (0x1D, the GS1 separator) types: nil when it is left out by choice.
    private let groupSeparator: KeyChord?
    /// The stroke for `groupSeparator` on this layout: nil when the layout cannot type it.
    private let groupSeparatorStroke: KeyAction?

    public init(layout: KeyboardLayout, missing: Missing = .drop, groupSeparator: KeyChord? = KeyChord.groupSeparator) {
        self.layout = layout
        self.missing = missing
        self.groupSeparator = groupSeparator
        groupSeparatorStroke = groupSeparator.flatMap { $0.action(on: layout) }
    }

    /// The actions for `bytes` (UTF-8, or Latin-1 when not UTF-8), and the characters left out.
    /// CR and LF type Enter (CR LF once), TAB types Tab.
    public func actions(for bytes: [UInt8]) -> (actions: [KeyAction], missing: [Character]) {
        let text = String(validating: bytes, as: UTF8.self) ?? LegacyText.latin1(bytes)
        var actions: [KeyAction] = []
        var left: [Character] = []
        var previous: Character?
        for character in text {
            defer { previous = character }
            switch character {
            case "\r", "\r\n": actions.append(.stroke(.enter, []))
            case "\n": if previous != "\r" { actions.append(.stroke(.enter, [])) }
            case "\t": actions.append(.stroke(.tab, []))
            case "\u{1D}":
                if let groupSeparatorStroke {
                    actions.append(groupSeparatorStroke)
                } else if groupSeparator != nil {
                    left.append(character)
                }
            default:
                if let typed = layout.actions(for: character) {
                    actions += typed
                } else if missing == .altCode, let code = Self.windowsCode(character) {
                    let digits = String(code).count < 3 ? String(repeating: "0", count: 3 - String(code).count) + String(code) : String(code)
                    actions.append(.altCode(("0" + digits).map { Key.keypad[Int(String($0))!] }))
                } else if missing == .unicode, let entry = unicodeEntry(character) {
                    actions += entry
                } else {
                    left.append(character)
                }
            }
        }
        return (actions, left)
    }

    /// Ctrl+Shift+U, the hex digits of `character`'s code point and Space, on this layout; nil when
    /// it is not one code point or the layout has no single stroke for one of those keys.
    func unicodeEntry(_ character: Character) -> [KeyAction]? {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first,
            let start = KeyChord.character("u", [.ctrl, .shift]).action(on: layout)
        else { return nil }
        var entry = [start]
        for digit in String(scalar.value, radix: 16) + " " {
            guard let typed = KeyChord.character(digit, []).action(on: layout) else { return nil }
            entry.append(typed)
        }
        return entry
    }

    /// The character's code in Windows-1252, which Alt+0NNN types on a Windows host.
    static func windowsCode(_ character: Character) -> Int? {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return nil }
        if let special = windows1252[scalar.value] { return special }
        return (0x20..<0x100).contains(scalar.value) && !(0x7F..<0xA0).contains(scalar.value) ? Int(scalar.value) : nil
    }

    private static let windows1252: [UInt32: Int] = [
        0x20AC: 128, 0x201A: 130, 0x0192: 131, 0x201E: 132, 0x2026: 133, 0x2020: 134, 0x2021: 135, 0x02C6: 136, 0x2030: 137,
        0x0160: 138, 0x2039: 139, 0x0152: 140, 0x017D: 142, 0x2018: 145, 0x2019: 146, 0x201C: 147, 0x201D: 148, 0x2022: 149,
        0x2013: 150, 0x2014: 151, 0x02DC: 152, 0x2122: 153, 0x0161: 154, 0x203A: 155, 0x0153: 156, 0x017E: 158, 0x0178: 159,
    ]
}

/// A key combination named by what it types: `ctrl+]` is Ctrl held on the key (and shift level)
/// that types `]` on the host's layout, so that the host reads Ctrl+] (GS) whatever its layout.
public enum KeyChord: Sendable, Hashable {
    case tab
    case character(Character, Modifiers)

    /// Ctrl+], as scanners type GS.
    public static let groupSeparator = KeyChord.character("]", .ctrl)

    /// The stroke on `layout`, or nil when no single stroke there types the character.
    public func action(on layout: KeyboardLayout) -> KeyAction? {
        switch self {
        case .tab: return .stroke(.tab, [])
        case .character(let character, let modifiers):
            guard let typed = layout.actions(for: character), typed.count == 1, case .stroke(let key, let level) = typed[0] else { return nil }
            return .stroke(key, level.union(modifiers))
        }
    }
}
