import Codes
import Foundation
import Imaging
import ScannerTestSupport
import Testing

/// GS1 Digital Link URIs read into the element strings of a GS1 symbol, and our GS1 parsing against
/// biip's on generated element strings and URIs, valid and not.
@Suite struct GS1DigitalLinkTests {
    static func pairs(_ elements: [GS1Element]?) -> [[String]]? { elements?.map { [$0.ai, $0.value] } }

    @Test func aDigitalLinkGivesTheElementStringsOfItsPathAndQuery() throws {
        let elements = try GS1DigitalLink.parse("https://id.gs1.org/01/09506000134352/10/ABC123/21/S%2F7?17=261231&linkType=gs1:pip", currentYear: 2026)
        #expect(Self.pairs(elements) == [["01", "09506000134352"], ["10", "ABC123"], ["21", "S/7"], ["17", "261231"]])
        #expect(elements?.last?.date == "2026-12-31")
        // Any domain, a path prefix before the key, a GTIN-13 padded to 14 digits.
        let shop = try GS1DigitalLink.parse("HTTPS://shop.example.com/p/en/01/9506000134352?3103=000195", currentYear: 2026)
        #expect(Self.pairs(shop) == [["01", "09506000134352"], ["3103", "000195"]])
    }

    @Test(arguments: [
        ("https://id.gs1.org/01/09506000134353", "check digit"),
        ("https://id.gs1.org/01/09506000134352/21/A/10/B", "qualifier '10'"),
        ("https://id.gs1.org/01/09506000134352/17/261231", "qualifier '17'"),
        ("https://id.gs1.org/01/09506000134352?17=260230", "YYMMDD"),
        ("https://id.gs1.org/01/09506000134352/10", "key/value pairs"),
        ("https://id.gs1.org/00/106141412345678909", "check digit"),
    ])
    func aDigitalLinkThatBreaksARuleIsAnError(uri: String, reason: String) {
        let error = #expect(throws: GS1Error.self) { try GS1DigitalLink.parse(uri, currentYear: 2026) }
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    /// Other URLs stay URLs, with no GS1 error: a news URL's date is no GTIN.
    @Test(arguments: [
        "https://news.example.com/2024/01/05/story", "https://example.com/", "ftp://id.gs1.org/01/09506000134352", "www.example.com/01/09506000134352",
    ])
    func otherURLsAreNotDigitalLinks(uri: String) throws {
        #expect(try GS1DigitalLink.parse(uri, currentYear: 2026) == nil)
    }

    @Test func aReadOfADigitalLinkCarriesItsGS1Data() {
        let corners = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])
        func read(_ text: String) -> Read {
            Read(symbol: Symbol(symbology: .qr, bytes: Array(text.utf8), corners: corners), frame: Size(width: 10, height: 10))
        }
        let link = read("https://id.gs1.org/01/09506000134352/10/ABC123")
        #expect(link.content == .gs1 && link.gs1Source == "digital-link" && link.gs1Error == nil)
        #expect(link.gs1?.map(\.ai) == ["01", "10"])
        let broken = read("https://id.gs1.org/01/09506000134353")
        #expect(broken.content == .url && broken.gs1 == nil && broken.gs1Source == "digital-link")
        #expect(broken.gs1Error?.contains("check digit") == true)
        let plain = read("https://example.com/menu")
        #expect(plain.content == .url && plain.gs1Source == nil && plain.gs1Error == nil)
    }

    // MARK: - The oracle

    /// One generated input: element strings (`es`) or a Digital Link URI (`dl`).
    struct Case: Codable {
        let kind: String
        let text: String
    }

    struct Verdict: Codable, Equatable {
        let ok: Bool
        var elements: [[String]]?
    }

    /// At least 200 inputs of each kind, about half broken in one way, from a fixed seed.
    static func cases() -> [Case] {
        var random = SeededGenerator(seed: 20_261_124)
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random.next() % 10)) }) }
        func word(_ count: Int) -> String {
            let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789abcdefxyz")
            return String((0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        func checked(_ body: String) -> String {
            let values = body.compactMap(\.wholeNumberValue)
            let sum = values.reversed().enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 3 : 1) }
            return body + String((10 - sum % 10) % 10)
        }
        func date(valid: Bool) -> String {
            let year = 20 + Int(random.next() % 15)
            let month = 1 + Int(random.next() % 12)
            let last = [31, (2000 + year) % 4 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            let day = valid ? Int(random.next() % UInt64(last + 1)) : last + 1
            return String(format: "%02d%02d%02d", year, valid || random.next() % 2 == 0 ? month : 13, day)
        }
        var cases: [Case] = []
        for index in 0..<240 {
            let broken = index % 2 == 1
            let flaw = random.next() % 4
            // A GTIN-13 in its 14-digit form, so that a URI may give it with 13 digits too.
            var gtin = checked("0" + digits(12))
            if broken && flaw == 0 { gtin = String(gtin.dropLast()) + String((gtin.last!.wholeNumberValue! + 1) % 10) }
            let lot = word(1 + Int(random.next() % 20))
            let serial = word(1 + Int(random.next() % 12))
            let expiry = date(valid: !(broken && flaw == 1))
            let weight = digits(6)
            // Element strings: fixed-length ones first, variable ones separated by GS.
            var es = "01\(gtin)17\(expiry)3103\(weight)10\(lot)\u{1D}21\(serial)"
            if broken && flaw == 2 { es = "01\(gtin)10\(word(21))\u{1D}21\(serial)" }
            if broken && flaw == 3 { es = "01\(gtin)23\(digits(4))" }
            cases.append(Case(kind: "es", text: es))
            // Digital Link: a domain, maybe a prefix, the key, qualifiers in order, query AIs.
            let domain = ["id.gs1.org", "example.com", "shop.example.org/p"][Int(random.next() % 3)]
            let key = random.next() % 2 == 0 ? gtin : String(gtin.dropFirst())
            var path = "/01/\(key)/10/\(lot)/21/\(serial)"
            if broken && flaw == 2 { path = "/01/\(key)/21/\(serial)/10/\(lot)" }
            if broken && flaw == 3 { path = "/01/\(key)/17/\(expiry)" }
            let query = "?17=\(expiry)&3103=\(weight)&linkType=gs1:pip"
            cases.append(Case(kind: "dl", text: "https://\(domain)\(path)\(query)"))
        }
        return cases
    }

    /// What our parser makes of a case, in the oracle's terms.
    static func ours(_ item: Case) -> Verdict {
        let elements =
            item.kind == "dl"
            ? (try? GS1DigitalLink.parse(item.text, currentYear: 2026)) ?? nil
            : try? GS1.parse(item.text, currentYear: 2026)
        return Verdict(ok: elements != nil, elements: pairs(elements))
    }

    /// The interpreter of the venv scripts/setup makes with biip in it.
    static let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/biip/bin/python3").standardized.path

    @Test func ourGS1ParsingAgreesWithBiip() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.oracle), "no biip at \(Self.oracle): run scripts/setup")
        let cases = Self.cases()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/gs1-oracle.py").standardized.path
        let verdicts = try Tool.jsonLines(Self.oracle, script, cases, as: Verdict.self)
        try #require(verdicts.count == cases.count, "the oracle answered \(verdicts.count) of \(cases.count)")
        var disagreements: [String] = []
        for (item, theirs) in zip(cases, verdicts) {
            var expected = theirs
            if !expected.ok { expected.elements = nil }
            let mine = Self.ours(item)
            if mine != expected { disagreements.append("\(item.kind) \(item.text.debugDescription): biip \(expected), ours \(mine)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(cases.count):\n\(disagreements.prefix(10).joined(separator: "\n"))")
        // Both kinds, and both outcomes, are well represented.
        for kind in ["es", "dl"] {
            let outcomes = zip(cases, verdicts).filter { $0.0.kind == kind }.map(\.1.ok)
            #expect(outcomes.count >= 200 && outcomes.filter { $0 }.count >= 100 && outcomes.filter { !$0 }.count >= 50, "\(kind)")
        }
    }
}
