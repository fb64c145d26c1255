/// A host keyboard layout: which key, with which modifiers, types each character. The keyboard
/// wedge compiles one from xkeyboard-config through libxkbcommon at start (the `Keymaps` module);
/// here it is only the resulting table.
public struct KeyboardLayout: Sendable {
    /// The name as configured, e.g. `de` or `ch(fr)`.
    public let name: String
    private let strokes: [Character: [KeyAction]]
    /// Keys whose shift state Caps Lock inverts (the letters).
    private let capsKeys: Set<Key>

    public init(name: String, strokes: [Character: [KeyAction]], capsKeys: Set<Key>) {
        self.name = name
        self.strokes = strokes
        self.capsKeys = capsKeys
    }

    /// The actions that type `character`, or nil when the layout has no key for it.
    public func actions(for character: Character) -> [KeyAction]? { strokes[character] }

    /// Whether Caps Lock inverts Shift for `key`.
    public func capsAffects(_ key: Key) -> Bool { capsKeys.contains(key) }

    /// Every character with keys in this layout.
    public var characters: [Character] { strokes.keys.sorted() }
}
