import CXKBCommon
import Codes

#if canImport(Glibc)
    import Glibc
#endif

/// Why a layout could not be compiled.
public struct KeymapError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Host keyboard layouts from xkeyboard-config, compiled with libxkbcommon into the table the
/// keyboard wedge types from: what a host with that layout types for each key and modifier state,
/// and what its dead keys type through the compose table.
public enum Keymap {
    /// Where xkeyboard-config (Debian's xkb-data) keeps its rules.
    public static let rulesFile = "/usr/share/X11/xkb/rules/evdev"
    /// The compose table dead keys are resolved with: a Linux host's en_US.UTF-8 (libx11-data).
    public static let composeLocale = "en_US.UTF-8"

    /// The layout and variant of a configured name: `de`, `ch(fr)`, `us(intl)`. `uk` is an alias
    /// of xkeyboard-config's `gb`.
    public static func parse(_ name: String) throws(KeymapError) -> (layout: String, variant: String) {
        var layout = Substring(name)
        var variant: Substring = ""
        if let open = name.firstIndex(of: "("), name.hasSuffix(")") {
            layout = name[..<open]
            variant = name[name.index(after: open)..<name.index(before: name.endIndex)]
        }
        let allowed = { (part: Substring) in part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } }
        guard !layout.isEmpty, allowed(layout), allowed(variant) else {
            throw KeymapError(description: "'\(name)' is not a layout name like de, ch(fr) or us(intl)")
        }
        return (layout == "uk" ? "gb" : String(layout), String(variant))
    }

    /// Compiles `name` into a layout: every character a key types with no modifier, Shift, AltGr
    /// or Shift+AltGr, on the alphanumeric block first and the ISO/JIS/ABNT2 extra keys after;
    /// then each character a dead key followed by another key composes.
    public static func compile(_ name: String) throws(KeymapError) -> KeyboardLayout {
        let (layout, variant) = try parse(name)
        guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else {
            throw KeymapError(description: "libxkbcommon could not make a context")
        }
        defer { xkb_context_unref(context) }
        // Failures are explained below; libxkbcommon's own messages would only go to stderr.
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        guard let keymap = newKeymap(context, layout: layout, variant: variant) else {
            if access(rulesFile, R_OK) != 0 {
                throw KeymapError(description: "no \(rulesFile): install xkb-data (xkeyboard-config)")
            }
            if !variant.isEmpty, let plain = newKeymap(context, layout: layout, variant: "") {
                xkb_keymap_unref(plain)
                throw KeymapError(
                    description: "xkeyboard-config's layout '\(layout)' has no variant '\(variant)' (see `localectl list-x11-keymap-variants \(layout)`)")
            }
            throw KeymapError(description: "xkeyboard-config has no layout '\(layout)' (see `localectl list-x11-keymap-layouts`)")
        }
        defer { xkb_keymap_unref(keymap) }
        return build(name: name, keymap: keymap, compose: xkb_compose_table_new_from_locale(context, composeLocale, XKB_COMPOSE_COMPILE_NO_FLAGS))
    }

    private static func newKeymap(_ context: OpaquePointer, layout: String, variant: String) -> OpaquePointer? {
        "evdev".withCString { rules in
            "pc105".withCString { model in
                layout.withCString { layout in
                    variant.withCString { variant in
                        var names = xkb_rule_names(rules: rules, model: model, layout: layout, variant: variant, options: nil)
                        return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                    }
                }
            }
        }
    }

    /// A key with modifiers, and the keysym a host gets for it.
    private struct Stroke {
        let key: Key
        let modifiers: Modifiers
        let keysym: xkb_keysym_t
        var action: KeyAction { .stroke(key, modifiers) }
    }

    /// xkb key codes are evdev codes plus 8.
    private static func keycode(_ key: Key) -> xkb_keycode_t { xkb_keycode_t(key.code) + 8 }
    private static let leftShift: xkb_keycode_t = 42 + 8
    private static let rightAlt: xkb_keycode_t = 100 + 8
    private static let levels: [Modifiers] = [[], .shift, .altGr, [.shift, .altGr]]
    /// XKB_KEY_dead_grave ... XKB_KEY_dead_greek and the rest of the dead keysyms.
    private static let deadKeysyms: ClosedRange<xkb_keysym_t> = 0xFE50...0xFE8F

    private static func build(name: String, keymap: OpaquePointer, compose: OpaquePointer?) -> KeyboardLayout {
        defer { xkb_compose_table_unref(compose) }
        var strokes: [Character: [KeyAction]] = [:]
        var direct: [Stroke] = []
        var dead: [Stroke] = []
        // What each key types with no modifier and with Shift, for the keys Caps Lock inverts.
        var plain: [Key: Character] = [:]
        var shifted: [Key: Character] = [:]
        for keys in [Key.typing, Key.extra] {
            for modifiers in levels {
                for key in keys {
                    let (keysym, scalar) = press(key, modifiers, keymap)
                    let stroke = Stroke(key: key, modifiers: modifiers, keysym: keysym)
                    if deadKeysyms.contains(keysym) {
                        if !dead.contains(where: { $0.keysym == keysym }) { dead.append(stroke) }
                        continue
                    }
                    guard let scalar, isTyped(scalar) else { continue }
                    let character = Character(scalar)
                    if modifiers.isEmpty { plain[key] = character }
                    if modifiers == .shift { shifted[key] = character }
                    if strokes[character] == nil {
                        strokes[character] = [stroke.action]
                        direct.append(stroke)
                    }
                }
            }
        }
        let capsKeys = Set(
            Key.typing.filter { key in
                guard let lower = plain[key], lower.isLowercase, let upper = shifted[key] else { return false }
                return String(upper) == lower.uppercased()
            })
        if let compose, let state = xkb_compose_state_new(compose, XKB_COMPOSE_STATE_NO_FLAGS) {
            defer { xkb_compose_state_unref(state) }
            // Dead key then space first (the dead key's own character), then any other key.
            let seconds = direct.filter { $0.key == .space } + direct.filter { $0.key != .space } + dead
            for first in dead {
                for second in seconds {
                    xkb_compose_state_reset(state)
                    _ = xkb_compose_state_feed(state, first.keysym)
                    _ = xkb_compose_state_feed(state, second.keysym)
                    guard xkb_compose_state_get_status(state) == XKB_COMPOSE_COMPOSED else { continue }
                    var buffer = [CChar](repeating: 0, count: 64)
                    xkb_compose_state_get_utf8(state, &buffer, buffer.count)
                    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    guard text.count == 1, let character = text.first, strokes[character] == nil, character.unicodeScalars.allSatisfy(isTyped)
                    else { continue }
                    strokes[character] = [first.action, second.action]
                }
            }
        }
        return KeyboardLayout(name: name, strokes: strokes, capsKeys: capsKeys)
    }

    /// Whether a key typing `scalar` types text (not a control character).
    private static func isTyped(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x20 && scalar.value != 0x7F }

    /// What a host with `keymap` gets for `key` with `modifiers` held: the keysym, and the
    /// character it types (nil for none).
    private static func press(_ key: Key, _ modifiers: Modifiers, _ keymap: OpaquePointer) -> (keysym: xkb_keysym_t, scalar: Unicode.Scalar?) {
        guard let state = xkb_state_new(keymap) else { return (0, nil) }
        defer { xkb_state_unref(state) }
        if modifiers.contains(.shift) { xkb_state_update_key(state, leftShift, XKB_KEY_DOWN) }
        if modifiers.contains(.altGr) { xkb_state_update_key(state, rightAlt, XKB_KEY_DOWN) }
        let keysym = xkb_state_key_get_one_sym(state, keycode(key))
        return (keysym, Unicode.Scalar(xkb_state_key_get_utf32(state, keycode(key))).flatMap { $0.value == 0 ? nil : $0 })
    }
}
