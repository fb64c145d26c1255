import Foundation
import Keyboard

/// What a Linux host types for the keys a keyboard wedge pressed: Tests/Tools/xkbtype replays
/// strokes through libxkbcommon and the en_US.UTF-8 compose table, as a host's keyboard stack
/// does. Strokes are "CODE:MODS", CODE an evdev key code, MODS 1 Shift, 2 AltGr, 4 Ctrl.
public enum HostKeyboard {
    static let xkbtype = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/tools/xkbtype").standardized.path

    /// The strokes of key actions, as the Typist makes them.
    public static func strokes(_ actions: [KeyAction]) -> String {
        actions.map { action in
            guard case .stroke(let key, let modifiers) = action else { return "?" }
            return "\(key.code):\(mods(modifiers))"
        }.joined(separator: " ")
    }

    /// The strokes in a uinput device's events (`struct input_event`, 24 bytes each, as
    /// libuinputemu records them): each key pressed with the modifiers held at that moment.
    public static func strokes(uinputEvents data: Data) -> String {
        let modifierCodes: [UInt16: Modifiers] = [29: .ctrl, 42: .shift, 56: .alt, 100: .altGr]
        var held: Modifiers = []
        var strokes: [String] = []
        for offset in stride(from: 0, to: data.count - 23, by: 24) {
            let type = data.subdata(in: offset + 16..<offset + 18).withUnsafeBytes { $0.load(as: UInt16.self) }
            let code = data.subdata(in: offset + 18..<offset + 20).withUnsafeBytes { $0.load(as: UInt16.self) }
            let value = data.subdata(in: offset + 20..<offset + 24).withUnsafeBytes { $0.load(as: Int32.self) }
            guard type == 1 else { continue }
            if let modifier = modifierCodes[code] {
                if value == 1 { held.insert(modifier) } else { held.remove(modifier) }
            } else if value == 1 {
                strokes.append("\(code):\(mods(held))")
            }
        }
        return strokes.joined(separator: " ")
    }

    /// The strokes in HID boot-keyboard reports (8 bytes: modifiers, reserved, keys), as a HID
    /// gadget sends them: each report with a key is a stroke; the all-zero release is not.
    public static func strokes(bootReports bytes: [UInt8]) -> String {
        let codes = Dictionary((Key.typing + Key.extra + Key.keypad + [.enter, .tab, .capsLock]).map { ($0.usage, $0.code) }) { first, _ in first }
        return stride(from: 0, to: bytes.count - 7, by: 8).compactMap { offset -> String? in
            guard bytes[offset + 2] != 0 else { return nil }
            let code = codes[bytes[offset + 2]].map(String.init) ?? "usage-\(bytes[offset + 2])"
            return "\(code):\(mods(Modifiers(rawValue: bytes[offset])))"
        }.joined(separator: " ")
    }

    /// What the host types for each line of strokes, on `layout`.
    public static func typed(_ lines: [String], layout: String) throws -> [String] {
        let input = try TemporaryDirectory.shared.file("strokes-\(UUID().uuidString.prefix(8)).txt")
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = try Tool.capture("/bin/sh", ["-c", "\"$0\" \"$1\" < \"$2\"", xkbtype, layout == "uk" ? "gb" : layout, input])
        guard result.status == 0 else { throw Tool.Failure(description: "xkbtype \(layout): \(result.stderr)") }
        // By byte: an Enter types "\r", and "\r\n" is one Character, which a split on "\n" would not see.
        return result.stdout.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func mods(_ modifiers: Modifiers) -> Int {
        (modifiers.contains(.shift) ? 1 : 0) | (modifiers.contains(.altGr) ? 2 : 0) | (modifiers.contains(.ctrl) ? 4 : 0)
    }
}
