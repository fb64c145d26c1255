import ArgumentParser
import Keymaps
import ScannerCore

/// `kiosk-scanner layout NAME [TEXT]`: what the keyboard wedge types, key by key, on a host with
/// that layout; for checking a layout (and its dead keys) before configuring it.
struct Layout: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the keys the keyboard wedge types for TEXT (default: printable ASCII) on a host layout.",
        discussion: """
            NAME is an xkeyboard-config layout with an optional variant, as in the config's `layout:` key: de, ch(fr), \
            us(intl). One line per character: the keys (with Shift, AltGr, or a dead key first), or `missing`. \
            The last line counts them. Exit 1 when a character is missing.
            """
    )

    @Argument(help: "The host layout, e.g. de or ch(fr).")
    var name: String

    @Argument(help: "The characters to look up.")
    var text = String((0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) })

    func run() throws {
        let layout: KeyboardLayout
        do {
            layout = try Keymap.compile(name)
        } catch {
            Scan.fail("\(error)")
            throw ExitCode(2)
        }
        var missing: [Character] = []
        var dead = 0
        for character in text {
            guard let actions = layout.actions(for: character) else {
                print("'\(character)' missing")
                missing.append(character)
                continue
            }
            if actions.count > 1 { dead += 1 }
            print("'\(character)' " + actions.map(Self.describe).joined(separator: " then "))
        }
        let count = text.count
        print(
            "\(name): \(count - missing.count) of \(count) characters typed, \(dead) through a dead key; missing: \(missing.isEmpty ? "none" : String(missing))"
        )
        if !missing.isEmpty { throw ExitCode(1) }
    }

    static func describe(_ action: KeyAction) -> String {
        guard case .stroke(let key, let modifiers) = action else { return "alt-code" }
        let held = [(Modifiers.ctrl, "ctrl"), (.shift, "shift"), (.alt, "alt"), (.altGr, "altgr")].filter { modifiers.contains($0.0) }.map(\.1)
        return (held + [key.name]).joined(separator: "+")
    }
}
