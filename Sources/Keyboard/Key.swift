/// A key of a PC keyboard, by position: its USB HID usage (what a HID keyboard sends) and its
/// Linux evdev code (what uinput sends). Names follow the US legends.
public struct Key: Sendable, Hashable, CustomStringConvertible {
    public let usage: UInt8
    public let code: UInt16
    public let name: String

    init(_ name: String, usage: UInt8, code: UInt16) {
        self.name = name
        self.usage = usage
        self.code = code
    }

    public var description: String { name }

    public static let grave = Key("grave", usage: 0x35, code: 41)
    public static let digits: [Key] = (0..<10).map { index in
        // 1...9 then 0, as on the keyboard.
        let digit = (index + 1) % 10
        return Key("\(digit)", usage: 0x1E + UInt8(index), code: 2 + UInt16(index))
    }
    public static let minus = Key("minus", usage: 0x2D, code: 12)
    public static let equal = Key("equal", usage: 0x2E, code: 13)
    public static let leftBrace = Key("leftbrace", usage: 0x2F, code: 26)
    public static let rightBrace = Key("rightbrace", usage: 0x30, code: 27)
    /// The key left of Enter (above it on ISO boards). HID has two usages for it, 0x31 and
    /// "Non-US #" 0x32; Linux (KEY_BACKSLASH) and Windows (scan code 0x2B) treat both alike.
    public static let backslash = Key("backslash", usage: 0x31, code: 43)
    public static let semicolon = Key("semicolon", usage: 0x33, code: 39)
    public static let apostrophe = Key("apostrophe", usage: 0x34, code: 40)
    public static let comma = Key("comma", usage: 0x36, code: 51)
    public static let dot = Key("dot", usage: 0x37, code: 52)
    public static let slash = Key("slash", usage: 0x38, code: 53)
    /// The ISO key between left Shift and Z.
    public static let iso102 = Key("102nd", usage: 0x64, code: 86)
    /// The JIS and ABNT2 key left of right Shift (HID "International1", KEY_RO).
    public static let ro = Key("ro", usage: 0x87, code: 89)
    /// The JIS key left of Backspace (HID "International3", KEY_YEN).
    public static let yen = Key("yen", usage: 0x89, code: 124)
    public static let space = Key("space", usage: 0x2C, code: 57)
    public static let enter = Key("enter", usage: 0x28, code: 28)
    public static let tab = Key("tab", usage: 0x2B, code: 15)
    public static let capsLock = Key("capslock", usage: 0x39, code: 58)

    /// a...z by their US position.
    public static func letter(_ letter: Character) -> Key {
        let index = Int(letter.asciiValue! - UInt8(ascii: "a"))
        let codes: [UInt16] = [30, 48, 46, 32, 18, 33, 34, 35, 23, 36, 37, 38, 50, 49, 24, 25, 16, 19, 31, 20, 22, 47, 17, 45, 21, 44]
        return Key(String(letter), usage: 0x04 + UInt8(index), code: codes[index])
    }

    /// The keys that type characters on every PC keyboard, row by row from the top (the
    /// alphanumeric block and space), in the order layouts are searched.
    public static let typing: [Key] =
        [grave] + digits + [minus, equal] + "qwertyuiop".map(letter) + [leftBrace, rightBrace]
        + "asdfghjkl".map(letter) + [semicolon, apostrophe, backslash] + "zxcvbnm".map(letter) + [comma, dot, slash, space]
    /// Keys that only some boards have (ISO, JIS, ABNT2): used for a character no other key types.
    public static let extra: [Key] = [iso102, ro, yen]

    /// Keypad 0...9, for Alt codes.
    public static let keypad: [Key] = [
        Key("kp0", usage: 0x62, code: 82), Key("kp1", usage: 0x59, code: 79), Key("kp2", usage: 0x5A, code: 80),
        Key("kp3", usage: 0x5B, code: 81), Key("kp4", usage: 0x5C, code: 75), Key("kp5", usage: 0x5D, code: 76),
        Key("kp6", usage: 0x5E, code: 77), Key("kp7", usage: 0x5F, code: 71), Key("kp8", usage: 0x60, code: 72),
        Key("kp9", usage: 0x61, code: 73),
    ]
}

/// Modifier keys held with a key: bits as in a HID boot report's first byte.
public struct Modifiers: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ctrl = Modifiers(rawValue: 0x01)
    public static let shift = Modifiers(rawValue: 0x02)
    public static let alt = Modifiers(rawValue: 0x04)
    /// Right Alt: AltGr on European layouts.
    public static let altGr = Modifiers(rawValue: 0x40)

    /// The evdev codes of the modifier keys, for uinput.
    public var codes: [UInt16] {
        [(Modifiers.ctrl, UInt16(29)), (.shift, 42), (.alt, 56), (.altGr, 100)].filter { contains($0.0) }.map(\.1)
    }
}

/// What a keyboard does to type one character.
public enum KeyAction: Sendable, Hashable {
    /// Press `key` with `modifiers` held, release both.
    case stroke(Key, Modifiers)
    /// Hold Alt and type these keypad keys (a Windows Alt code), then release Alt.
    case altCode([Key])
}
