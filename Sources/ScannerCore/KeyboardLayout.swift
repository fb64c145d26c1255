/// A host keyboard layout: which key, with which modifiers, types each character. Tables follow
/// xkeyboard-config's `us`, `gb`, `de` and `fr` (checked against libxkbcommon in the tests).
public struct KeyboardLayout: Sendable {
    public let name: String
    private let strokes: [Character: [KeyAction]]
    /// Keys whose shift state Caps Lock inverts (the letters).
    private let capsKeys: Set<Key>

    /// Every layout by its config name.
    public static let all: [String: KeyboardLayout] = [us.name: us, uk.name: uk, de.name: de, fr.name: fr]

    /// The actions that type `character`, or nil when the layout has no key for it.
    public func actions(for character: Character) -> [KeyAction]? {
        character == " " ? [.stroke(.space, [])] : strokes[character]
    }

    /// Whether Caps Lock inverts Shift for `key`.
    public func capsAffects(_ key: Key) -> Bool { capsKeys.contains(key) }

    /// Every character with a key in this layout (space included).
    public var characters: [Character] { [" "] + strokes.keys.sorted() }

    // Rows of keys in the order the tables list them.
    private static let rowE = [Key.grave] + Key.digits + [.minus, .equal]
    private static let rowD = "qwertyuiop".map(Key.letter) + [.leftBrace, .rightBrace]
    private static func rowC(_ keyLeftOfEnter: Key) -> [Key] { "asdfghjkl".map(Key.letter) + [.semicolon, .apostrophe, keyLeftOfEnter] }
    private static let rowB = [Key.iso102] + "zxcvbnm".map(Key.letter) + [.comma, .dot, .slash]

    /// A layout from its rows: for each shift level (plain, Shift, AltGr) one string per row
    /// (E: ` 1...0 - =; D: q...p [ ]; C: a...l ; ' and the key left of Enter; B: the ISO key, z...m , . /),
    /// a space where the key types nothing usable there (or a dead key). `dead` lists characters
    /// typed as a dead key followed by space.
    init(_ name: String, iso: Bool, levels: [[String]], dead: [Character: (Key, Modifiers)] = [:]) {
        self.name = name
        let rows = [Self.rowE, Self.rowD, Self.rowC(iso ? .hash : .backslash), Self.rowB]
        let modifiers: [Modifiers] = [[], .shift, .altGr]
        var strokes: [Character: [KeyAction]] = [:]
        var caps: Set<Key> = []
        for (level, texts) in levels.enumerated() {
            for (row, text) in texts.enumerated() {
                precondition(text.count == rows[row].count, "\(name) level \(level) row \(row): \(text.count) keys for \(rows[row].count)")
                for (key, character) in zip(rows[row], text) where character != " " && strokes[character] == nil {
                    strokes[character] = [.stroke(key, modifiers[level])]
                }
            }
        }
        for (row, keys) in rows.enumerated() {
            for (index, key) in keys.enumerated() {
                let plain = Array(levels[0][row])[index]
                let shifted = Array(levels[1][row])[index]
                if plain.isLowercase && String(shifted) == plain.uppercased() { caps.insert(key) }
            }
        }
        for (character, stroke) in dead where strokes[character] == nil {
            strokes[character] = [.stroke(stroke.0, stroke.1), .stroke(.space, [])]
        }
        self.strokes = strokes
        capsKeys = caps
    }

    public static let us = KeyboardLayout(
        "us", iso: false,
        levels: [
            ["`1234567890-=", "qwertyuiop[]", "asdfghjkl;'\\", " zxcvbnm,./"],
            ["~!@#$%^&*()_+", "QWERTYUIOP{}", "ASDFGHJKL:\"|", " ZXCVBNM<>?"],
        ])

    public static let uk = KeyboardLayout(
        "uk", iso: true,
        levels: [
            ["`1234567890-=", "qwertyuiop[]", "asdfghjkl;'#", "\\zxcvbnm,./"],
            ["¬!\"£$%^&*()_+", "QWERTYUIOP{}", "ASDFGHJKL:@~", "|ZXCVBNM<>?"],
            ["|¹²³€½¾{[]}\\ ", "@ſe¶ŧ←↓→øþ  ", "æßðđŋħ ĸł   ", "|«»¢„“”µ•· "],
        ])

    public static let de = KeyboardLayout(
        "de", iso: true,
        levels: [
            [" 1234567890ß ", "qwertzuiopü+", "asdfghjklöä#", "<yxcvbnm,.-"],
            ["°!\"§$%&/()=? ", "QWERTZUIOPÜ*", "ASDFGHJKLÖÄ'", ">YXCVBNM;:_"],
            [" ¹²³¼½¬{[]}\\ ", "@ſ€¶ŧ←↓→øþ ~", "æſðđŋħ ĸł  ’", "|»«¢„“”µ·…–"],
        ], dead: ["^": (.grave, []), "`": (.equal, .shift), "´": (.equal, [])])

    public static let fr = KeyboardLayout(
        "fr", iso: true,
        levels: [
            ["²&é\"'(-è_çà)=", "azertyuiop $", "qsdfghjklmù*", "<wxcvbn,;:!"],
            ["~1234567890°+", "AZERTYUIOP £", "QSDFGHJKLM%µ", ">WXCVBN?./§"],
            ["¬¹~#{[|`\\^@]}", "æ«€¶ŧ←↓→øþ ¤", "@ßðđŋħ ĸłµ  ", "|ł»¢„“” •· "],
        ])
}
