import ConfigFile
import ConfigReading
import Testing

/// `control_characters` on each output and on the socket, and its defaults.
@Suite struct ControlCharactersConfigTests {
    @Test func eachOutputReadsItsPolicy() throws {
        let config = try ConfigFile.parse(
            """
            socket:
              control_characters: escape
            outputs:
              - { type: serial, device: /dev/ttyS0, control_characters: drop }
              - type: keyboard
                control_characters: keep
              - type: hid-pos
                device: /dev/hidg1
                control_characters: { replace: "<ESC>?" }
              - { type: serial, device: /dev/ttyS1, control_characters: caret }
              - { type: serial, device: /dev/ttyS2, control_characters: { replace: "" } }
            """, file: "c.conf")
        #expect(config.socket.controlCharacters == .escape)
        #expect(config.outputs.map(\.format.controlCharacters) == [.drop, .keep, .replace([0x1B, 0x3F]), .caret, .replace([])])
        #expect(config.outputs[1].format.keptByDrop == [0x1D], "a keyboard set to drop explicitly still types GS")
    }

    @Test func keyboardsDropAndDataChannelsKeepByDefault() throws {
        let config = try ConfigFile.parse(
            """
            outputs:
              - { type: serial, device: /dev/ttyS0 }
              - { type: keyboard }
              - { type: keyboard, backend: hid-gadget }
              - { type: hid-pos, device: /dev/hidg1 }
            """, file: "d.conf")
        #expect(config.outputs.map(\.format.controlCharacters) == [.keep, .drop, .drop, .keep])
        #expect(config.outputs.map(\.format.keptByDrop) == [[], [0x1D], [0x1D], []])
        #expect(config.socket.controlCharacters == .keep)
    }

    @Test(arguments: [
        ("control_characters: strip", "", "'strip' is not one of keep, drop, caret, escape, or {replace: TEXT}"),
        ("control_characters: replace", "", "replace takes the text each one becomes"),
        ("control_characters: [drop]", "", "expected one of keep, drop, caret, escape, or {replace: TEXT}"),
        ("control_characters: { with: \"?\" }", "", "expected one of keep"),
        ("control_characters: { replace: \"\\\\q\" }", ".replace", "bad escape"),
    ])
    func aBadValueNamesFileLineAndKey(line: String, subkey: String, reason: String) {
        expectConfigError(
            "outputs:\n  - type: serial\n    device: /dev/ttyS0\n    \(line)\n", line: 4, key: "outputs[0].control_characters" + subkey, reason: reason)
        expectConfigError("socket:\n  path: /run/s.sock\n  \(line)\n", line: 3, key: "socket.control_characters" + subkey, reason: reason)
    }

    @Test func anUnknownKeyBesideReplaceIsNamed() {
        expectConfigError(
            "outputs:\n  - type: keyboard\n    control_characters:\n      replace: \"?\"\n      for: [cr]\n", line: 5,
            key: "outputs[0].control_characters.for", reason: "unknown key (known here: replace)")
    }
}
