import Codes
import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// One read per pack, the GTIN options and the formatting rules through the real binary's `scan`,
/// on codes drawn by zint and qrencode.
@Suite struct ScanFormattingTests {
    let binary = Tool.scannerBinary

    func config(_ text: String) throws -> String {
        let path = try TemporaryDirectory.shared.file("formatting-\(UUID().uuidString).conf")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func scan(_ arguments: [String]) throws -> ToolResult {
        try Tool.capture(binary, ["scan"] + arguments)
    }

    func objects(_ result: ToolResult) throws -> [[String: Any]] {
        try result.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    /// An EAN-13 and a Digital Link QR code of the same GTIN side by side on one frame.
    static func packFrame(ean: String = "9506000134352", link: String = "https://id.gs1.org/01/09506000134352/10/ABC123?17=271231") throws -> String {
        let images = [try ImageFile.read(path: Barcodes.zint(.ean13, ean)), try ImageFile.read(path: Barcodes.qr(link, moduleSize: 3))]
        return try Barcodes.pgmFile(Barcodes.sideBySide(images, in: Size(width: 640, height: 480)), name: "pack")
    }

    @Test func anEANAndADigitalLinkOfOnePackAreOneRead() throws {
        let frame = try Self.packFrame()
        let merged = try objects(scan(["--json", frame]))
        try #require(merged.count == 1, "\(merged)")
        #expect(merged[0]["symbology"] as? String == "QR-Code", "the code with batch and expiry is kept")
        #expect(merged[0]["gs1_source"] as? String == "digital-link")
        #expect((merged[0]["gs1"] as? [[String: Any]])?.compactMap { $0["ai"] as? String } == ["01", "10", "17"])
        let others = try #require(merged[0]["merged"] as? [[String: Any]])
        #expect(others.count == 1 && others[0]["symbology"] as? String == "EAN-13" && others[0]["text"] as? String == "9506000134352")

        let linear = try objects(scan(["--json", "--config", config("pack:\n  prefer: linear\n"), frame]))
        #expect(linear.map { $0["symbology"] as? String } == ["EAN-13"])
        let apart = try objects(scan(["--json", "--config", config("pack:\n  merge: false\n"), frame]))
        #expect(Set(apart.compactMap { $0["symbology"] as? String }) == ["EAN-13", "QR-Code"])
        // A different GTIN is a different item.
        let twoItems = try objects(scan(["--json", Self.packFrame(ean: "4006381333931")]))
        #expect(twoItems.count == 2 && twoItems.allSatisfy { $0["merged"] == nil })
    }

    @Test(arguments: FormattingCases.gtin)
    func eachGTINOption(_ option: FormattingCases.GTIN) throws {
        let image = try Barcodes.zint(option.symbology, option.data)
        let asPrinted = try scan([image])
        let result = try scan(["--config", config("socket:\n  gtin:\n" + FormattingCases.indented(option.option, by: 4) + "\n"), image])
        #expect(result.status == 0)
        #expect(result.stdout == "\(option.symbology.displayName):\(option.expected)\n", "printed: \(asPrinted.stdout)")
        #expect(asPrinted.stdout != result.stdout, "the default sends the code as printed")
    }

    @Test func aDigitalLinkCanGoOutAsAnElementStringWithItsAIMIdentifier() throws {
        let link = try Barcodes.qr("https://example.com/01/09506000134352/10/ABC123/21/S1?17=261231")
        let configPath = try config("socket:\n  gtin:\n    digital_link: element-string\n")
        let result = try objects(scan(["--json", "--config", configPath, link]))
        try #require(result.count == 1)
        #expect(result[0]["formatted"] as? String == "010950600013435210ABC123\u{1D}21S1\u{1D}17261231")
        #expect(result[0]["text"] as? String == "https://example.com/01/09506000134352/10/ABC123/21/S1?17=261231", "the read itself is untouched")
        // With the AIM identifier, as a serial output sends it: ]Q3, GS1 data in a QR code.
        let withAIM = try scan(["--config", config("socket:\n  gtin:\n    digital_link: element-string\n  rules:\n    - do: [prefix: \"]Q3\"]\n"), link])
        #expect(withAIM.stdout == "QR-Code:]Q3010950600013435210ABC123\u{1D}21S1\u{1D}17261231\n")
    }

    /// Each action through a config file, on a Code 128.
    @Test(arguments: FormattingCases.rules)
    func eachRuleAction(_ rule: FormattingCases.Rule) throws {
        let image = try Barcodes.zint(.code128, FormattingCases.ruleSubject)
        let result = try scan(["--config", config("socket:\n" + rule.keys(indentedBy: 2) + "\n"), image])
        #expect(result.stdout == rule.expected.map { "CODE-128:\($0)\n" } ?? "", "\(result.stderr)")
    }

    @Test func takeAISendsOnlyTheGTINOfAGS1Code() throws {
        let image = try Barcodes.zint(.datamatrix, "[01]09506000134352[17]271231[10]LOT7", gs1: true)
        let rules = "socket:\n  rules:\n    - when: { ai: \"01\" }\n      do: [take_ai: \"01\"]\n"
        #expect(try scan(["--config", config(rules), image]).stdout == "DataMatrix:09506000134352\n")
    }

    @Test func aBadRuleNamesFileLineAndKey() throws {
        let path = try config("socket:\n  rules:\n    - when: { symbology: ean13 }\n      do: [strip_leading: -1]\n")
        let result = try scan(["--config", path, Barcodes.zint(.ean13, "400638133393")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):4: socket.rules[0].do[0].strip_leading: -1 is out of range"), "\(result.stderr)")
    }

    /// The rule that froze the daemon (a backtracking engine never finishes `(a|aa)+b` on 40 a's):
    /// through RE2 it simply does not match.
    @Test func aBacktrackingPatternDoesNotStallTheRules() throws {
        let code = String(repeating: "a", count: 40)
        let rules = """
            socket:
              rules:
                - when: { regex: "(a|aa)+b" }
                  do: drop
                - do: [replace: { pattern: "(a|aa)+b", with: x }, suffix: "!"]

            """
        let result = try scan(["--config", config(rules), Barcodes.zint(.code128, code)])
        #expect(result.status == 0)
        #expect(result.stdout == "CODE-128:\(code)!\n", "\(result.stderr)")
    }

    /// A pattern RE2 refuses fails check-config, with file, line and key.
    @Test(arguments: [
        ("    - when: { regex: \"(a\" }\n      do: drop\n", 3, "socket.rules[0].when.regex", "missing ): (a"),
        (
            "    - do:\n        - replace:\n            pattern: \"(a)\\\\1\"\n", 5, "socket.rules[0].do[0].replace.pattern",
            "invalid escape sequence: \\1 (RE2 has no backreferences)"
        ),
    ])
    func checkConfigRefusesAPatternRE2CannotCompile(rule: String, line: Int, key: String, reason: String) throws {
        let path = try config("socket:\n  rules:\n" + rule)
        let result = try Tool.capture(binary, ["check-config", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path):\(line): \(key): not a regular expression RE2 accepts: \(reason)"), "\(result.stderr)")
    }
}
