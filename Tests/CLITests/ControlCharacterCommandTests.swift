import Foundation
import ScannerCore
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the commands make of control characters: `layout` reports what the wedge types under each
/// policy, and `scan` escapes them on a terminal only.
@Suite struct ControlCharacterCommandTests {
    /// `HostileCode.text` as `layout --escapes` takes it (argv cannot carry NUL).
    static let escapedHostile = HostileCode.text.unicodeScalars.map { scalar in
        ControlCharacters.isControl(scalar) ? "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16) : String(scalar)
    }.joined()

    static let keyCodes = Dictionary(uniqueKeysWithValues: (Key.typing + Key.extra + [.enter, .tab]).map { ($0.name, $0.code) })

    /// The strokes `layout` reports, as xkbtype takes them: `'c' shift+a then b` or
    /// `'c' as ^M: shift+6 then shift+m` give strokes; `dropped` and `missing` none.
    static func strokes(reported stdout: String) -> String {
        var strokes: [String] = []
        for line in stdout.split(separator: "\n").dropLast() {
            // After the quoted character: skip to its closing quote and the space.
            guard let close = line.dropFirst().firstRange(of: "' ") else { continue }
            var keys = line[close.upperBound...]
            if keys == "missing" || keys.hasPrefix("dropped") { continue }
            if keys.hasPrefix("as "), let colon = keys.firstRange(of: ": ") { keys = keys[colon.upperBound...] }
            for stroke in keys.split(separator: " then ") {
                let parts = stroke.split(separator: "+").map(String.init)
                let mods = parts.dropLast().reduce(0) { $0 | ["shift": 1, "altgr": 2, "ctrl": 4][$1, default: 0] }
                strokes.append("\(keyCodes[parts.last!].map(String.init) ?? parts.last!):\(mods)")
            }
        }
        return strokes.joined(separator: " ")
    }

    /// Read back on a `us` host, `layout`'s keys type what the daemon's wedges type
    /// (ControlCharacterOutputTests), under every policy and with none given.
    @Test(arguments: HostileCode.Policy.allCases)
    func layoutReportsWhatTheWedgeTypes(policy: HostileCode.Policy) throws {
        let result = try Tool.capture(Tool.scannerBinary, ["layout"] + policy.option + ["--escapes", "us", Self.escapedHostile])
        #expect(result.status == (policy == .keep ? 1 : 0), "under keep, ESC, BEL, ETX, DEL and NUL have no key: \(result.stdout)")
        #expect(try HostKeyboard.typed([Self.strokes(reported: result.stdout)], layout: "us").first == policy.typed, "\(result.stdout)")
    }

    @Test func layoutNamesControlCharactersEscapedAndSaysWhatBecomesOfThem() throws {
        let keep = try Tool.capture(Tool.scannerBinary, ["layout", "--control-characters", "keep", "us", "a\r\t\u{1B}"])
        #expect(keep.stdout == "'a' a\n'\\r' enter\n'\\t' tab\n'\\x1b' missing\nus: 3 of 4 characters typed, 0 through a dead key; missing: \\x1b\n")
        #expect(keep.status == 1)
        let drop = try Tool.capture(Tool.scannerBinary, ["layout", "--escapes", "us", "a\\r<GS>"])
        #expect(
            drop.stdout
                == "'a' a\n'\\r' dropped (control_characters: drop)\n'\\x1d' ctrl+rightbrace\nus: 2 of 3 characters typed, 0 through a dead key, 1 dropped; missing: none\n"
        )
        #expect(drop.status == 0)
        let caret = try Tool.capture(Tool.scannerBinary, ["layout", "--control-characters", "caret", "--escapes", "de", "\\n"])
        #expect(caret.stdout.hasPrefix("'\\n' as ^J: grave then space then shift+j\n"), "^ is a dead key on de")
        let bad = try Tool.capture(Tool.scannerBinary, ["layout", "--control-characters", "strip", "us"])
        #expect(bad.status == 2 && bad.stderr.contains("'strip' is not one of keep, drop, caret, escape, replace:TEXT"))
    }

    @Test func scanEscapesControlCharactersOnATerminalOnly() throws {
        let file = try Barcodes.qr(bytes: Array(HostileCode.text.utf8))
        let shown = "QR-Code:" + HostileCode.Policy.escape.serialData + "\n"
        #expect(try Tool.scannerOnTerminal(["scan", file], atLeast: shown.utf8.count) == Array(shown.utf8))
        // A pipe gets the data as decoded, for programs.
        #expect(try Tool.capture(Tool.scannerBinary, ["scan", file]).stdout == "QR-Code:\(HostileCode.text)\n")
    }

    /// JSONEncoder escapes C0 itself, but writes DEL and C1 as they are (U+009B is CSI to some
    /// terminals): on a terminal they become \u escapes, which keep the line JSON with the same text.
    @Test func scanJSONOnATerminalStaysJSON() throws {
        let text = "A\u{1B}[1mB\u{7F}C\u{9B}31mD"
        let file = try Barcodes.qr(bytes: Array(text.utf8))
        let piped = try Tool.capture(Tool.scannerBinary, ["scan", "--json", file]).stdout
        #expect(piped.contains("\"text\":\"A\\u001b[1mB\u{7F}C\u{9B}31mD\""), "\(piped)")
        let shown = String(decoding: try Tool.scannerOnTerminal(["scan", "--json", file], atLeast: piped.utf8.count), as: UTF8.self)
        #expect(shown.contains(#""text":"A\u001b[1mB\u007fC\u009b31mD""#), "\(shown)")
        #expect(!shown.unicodeScalars.dropLast().contains(where: ControlCharacters.isControl), "only the newline")
        let object = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
        #expect(object?["text"] as? String == text)
    }
}
