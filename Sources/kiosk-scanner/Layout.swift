import ArgumentParser
import Codes
import Keyboard

/// `kiosk-scanner layout NAME [TEXT]`: what the keyboard wedge types, key by key, on a host with
/// that layout; for checking a layout (and its dead keys) before configuring it. It goes the wedge's
/// own way (control-character policy, then `Typist`), so that what it reports is what is typed.
struct Layout: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the keys the keyboard wedge types for TEXT (default: printable ASCII) on a host layout.",
        discussion: """
            NAME is an xkeyboard-config layout with an optional variant, as in the config's `layout:` key: de, ch(fr), \
            us(intl). One line per character: the keys (with Shift, AltGr, or a dead key first), `missing`, or \
            `dropped` for a control character the policy leaves out. Control characters are shown escaped (\\r, \\x1b). \
            GS types the default gs_key, ctrl+]. The last line counts them. Exit 1 when a character is missing, 2 when \
            the layout or the policy is unknown.
            """
    )

    @Argument(help: "The host layout, e.g. de or ch(fr).")
    var name: String

    @Argument(help: "The characters to look up (default: printable ASCII).")
    var text: String?

    @Flag(help: "TEXT holds escapes as the config's prefix does (\\r \\n \\t \\\\ \\xHH <GS> <ESC>...), for control characters and NUL.")
    var escapes = false

    @Option(help: "The output's control_characters: keep, drop (the wedge's default), caret, escape, or replace:TEXT.")
    var controlCharacters = "drop"

    func run() throws {
        let layout: KeyboardLayout
        var format = OutputFormat.keyboard
        var text = text ?? String((0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) })
        do {
            layout = try Keymap.compile(name)
            format.controlCharacters = try Self.policy(controlCharacters)
            if escapes, self.text != nil {
                guard let bytes = OutputFormat.unescape(text) else { throw ValidationError("TEXT: bad escape (\\r \\n \\t \\\\ \\xHH <GS>...)") }
                text = String(decoding: bytes, as: UTF8.self)
            }
        } catch {
            Scan.fail("\(error)")
            throw ExitCode(2)
        }
        let typist = Typist(layout: layout)
        var missing: [Character] = []
        var dead = 0
        var dropped = 0
        for character in text {
            let shown = "'\(ControlCharacters.escape.apply(to: String(character)))'"
            let bytes = Array(String(character).utf8)
            let data = format.data(bytes)
            if data.isEmpty {
                print("\(shown) dropped (control_characters: \(controlCharacters))")
                dropped += 1
                continue
            }
            let typed = typist.actions(for: data)
            // Rewritten by the policy (^M, \r, or the replacement): say what is typed instead.
            let rewritten = data == bytes ? "" : "as \(ControlCharacters.escape.apply(to: String(decoding: data, as: UTF8.self))): "
            guard typed.missing.isEmpty else {
                print("\(shown) \(rewritten)missing")
                missing.append(character)
                continue
            }
            if typed.actions.count > 1 && data == bytes { dead += 1 }
            print("\(shown) \(rewritten)" + typed.actions.map(Self.describe).joined(separator: " then "))
        }
        let count = text.count
        let listed = missing.isEmpty ? "none" : ControlCharacters.escape.apply(to: String(missing))
        let left = dropped > 0 ? ", \(dropped) dropped" : ""
        print("\(name): \(count - missing.count - dropped) of \(count) characters typed, \(dead) through a dead key\(left); missing: \(listed)")
        if !missing.isEmpty { throw ExitCode(1) }
    }

    /// `keep`, `drop`, `caret`, `escape`, or `replace:TEXT` (with the config's escapes).
    static func policy(_ text: String) throws -> ControlCharacters {
        if let policy = ControlCharacters.named[text] { return policy }
        if text.hasPrefix("replace:"), let bytes = OutputFormat.unescape(String(text.dropFirst("replace:".count))) { return .replace(bytes) }
        throw ValidationError("--control-characters: '\(text)' is not one of keep, drop, caret, escape, replace:TEXT")
    }

    static func describe(_ action: KeyAction) -> String {
        guard case .stroke(let key, let modifiers) = action else { return "alt-code" }
        let held = [(Modifiers.ctrl, "ctrl"), (.shift, "shift"), (.alt, "alt"), (.altGr, "altgr")].filter { modifiers.contains($0.0) }.map(\.1)
        return (held + [key.name]).joined(separator: "+")
    }
}
