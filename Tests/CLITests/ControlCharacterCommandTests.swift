import Codes
import Foundation
import Keyboard
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the commands make of control characters: `layout` reports what the wedge types under each
/// policy, and `scan`, `snapshot` and `hidpos-listen` escape them on a terminal only.
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

    /// A HID POS scanner chooses the three AIM bytes and the data: ESC c resets a terminal, BEL
    /// rings it, DEL and C1 (U+009B is CSI) pass the text check. On a terminal all are escaped.
    @Test func hidposListenEscapesControlCharactersOnATerminalOnly() throws {
        var reports = HIDPOS.reports(data: Array("A\u{7F}B\u{9B}31mC\u{1D}9".utf8), aim: "]Q1")
        reports[0].replaceSubrange(2..<5, with: [0x1B, 0x63, 0x07])
        let path = try TemporaryDirectory.shared.file("hidraw-hostile-\(UUID().uuidString.prefix(8))")
        try Data(reports.flatMap { $0 }).write(to: URL(fileURLWithPath: path))
        let shown = #"\x1bc\a A\x7fB\u009b31mC<GS>9"# + "\n"
        #expect(try Tool.scannerOnTerminal(["hidpos-listen", path], atLeast: shown.utf8.count) == Array(shown.utf8))
        #expect(try Tool.capture(Tool.scannerBinary, ["hidpos-listen", path]).stdout == "\u{1B}c\u{07} A\u{7F}B\u{9B}31mC<GS>9\n")
    }

    /// `snapshot` names the codes in view by their text: on a terminal, escaped.
    @Test func snapshotEscapesCodeTextOnATerminalOnly() throws {
        let text = "AB\u{1B}]0;pwn\u{07}C\u{9B}31mD\u{7F}"
        let (daemon, out) = try SnapshotCommandTests.daemon(showing: text)
        let arguments = ["snapshot", "--out", out, "--socket", daemon.socketPath]
        let piped = try Tool.capture(Tool.scannerBinary, arguments)
        #expect(piped.status == 0 && piped.stdout.hasSuffix("\n  QR-Code \(text)\n"), "\(piped.stdout) \(piped.stderr)")
        let label = #"  QR-Code AB\x1b]0;pwn\aC\u009b31mD\x7f"# + "\n"
        // The frame's number can only have grown since: at least the piped length, label escaped.
        let count = piped.stdout.utf8.count - "  QR-Code \(text)\n".utf8.count + label.utf8.count
        let shown = String(decoding: try Tool.scannerOnTerminal(arguments, atLeast: count), as: UTF8.self)
        #expect(shown.hasPrefix("\(out): frame ") && shown.hasSuffix("code in view\n" + label), "\(shown)")
        #expect(!shown.unicodeScalars.contains { ControlCharacters.isControl($0) && $0 != "\n" }, "\(shown)")
    }
}
