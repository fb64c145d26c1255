import Documents
import Foundation
import ScannerTestSupport
import Testing

/// Broken, truncated and oddly encoded documents: each fails with a message naming what broke, or,
/// for the quirks real issuers have, still reads; none crashes.
@Suite struct AAMVAMalformedTests {
    @Test(arguments: [
        ("", "header: expected the compliance indicator '@' at byte 0"),
        ("X\n\u{1E}\rANSI 636000100102", "header: expected the compliance indicator '@' at byte 0"),
        ("@\n\u{1E}\rANSX 636000100102", "header: expected 'ANSI ' at byte 4"),
        ("@\n\u{1E}\rANSI 63600", "header: the data ends at byte 14, before the IIN at byte 9"),
        ("@\n\u{1E}\rANSI 63A000100102", "header: expected the IIN (6 digits) at byte 9: '63A000'"),
        ("@\n\u{1E}\rANSI 636000100100", "header: the number of entries is 00"),
        ("@\n\u{1E}\rANSI 636000100101DL0041", "subfile directory: entry 1 of 1 ends past the data (27 bytes)"),
        ("@\n\u{1E}\rANSI 636000100101d!00310010DLDAQ1\r", "subfile directory: entry 1 has no subfile type at byte 21"),
        ("@\n\u{1E}\rANSI 636000100101DL04120278DLDAQ1\r", "subfile DL: offset 0412 beyond the data (38 bytes)"),
        ("@\n\u{1E}\rANSI 636000100101DL00310008XXXXXXX\r", "subfile DL: no 'DL' at offset 0031 or near it"),
        ("@\n\u{1E}\rANSI 636000100101DL00310008DLDAQ12", "subfile DL: no segment terminator (CR) after byte 31: the data ends at byte 38"),
        ("@\n\u{1E}\rANSI 636000100101DL00310008DLDAQ1\nD\r", "subfile DL: no element ID at byte 38: 'D'"),
        ("@\n\u{1E}\rANSI 636000100101ZV00310008ZVZVA1\r", "no DL or ID subfile (subfiles: ZV)"),
    ])
    func brokenStructureIsNamed(text: String, message: String) {
        #expect(aamvaFailure(Array(text.utf8)) == message)
    }

    @Test(arguments: [
        ("DBB", "13452020", "DBB: not a date: 13452020"),
        ("DBA", "0229202", "DBA: not a date: 0229202"),
        ("DBD", "02302020", "DBD: not a date: 02302020"),
        ("DBC", "7", "DBC: not a sex code (1, 2 or 9): 7"),
        ("DDE", "Y", "DDE: not a truncation code (T, N or U): Y"),
    ])
    func aValueTheStandardDoesNotAllowFailsTheRead(id: String, value: String, message: String) {
        var file = AAMVABuilder.version8()
        file.subfiles[0].elements = file.subfiles[0].elements.map { $0.0 == id ? (id, value) : $0 }
        #expect(aamvaFailure(file.bytes()) == message)
    }

    @Test func missingMandatoryElementsAreListedAndTheirFieldsLeftOut() throws {
        var file = AAMVABuilder.version8()
        file.subfiles[0].elements.removeAll { ["DAQ", "DBB", "DDF"].contains($0.0) }
        let read = try #require(aamvaDocument(file.text()))
        #expect(read.problems == ["missing mandatory DAQ", "missing mandatory DBB", "missing mandatory DDF"])
        let names = Set(read.fields.map(\.name))
        for absent in ["customer_id", "birth_date", "age", "age_over_18", "age_over_21", "given_name_truncated"] {
            #expect(!names.contains(absent), "\(absent)")
        }
        #expect(names.contains("expired") && names.contains("family_name"))
    }

    @Test func eightZerosIsNoDate() throws {
        var file = AAMVABuilder.version8()
        file.subfiles[0].elements = file.subfiles[0].elements.map { $0.0 == "DBD" ? ("DBD", "00000000") : $0 }
        let read = try #require(aamvaDocument(file.text()))
        #expect(read.issueDate == nil && read.problems.isEmpty)
    }

    @Test func aBirthDateAfterTodayGivesNoAge() throws {
        let read = try #require(aamvaDocument(AAMVABuilder.version8(birth: "01012030").text()))
        #expect(read.age == nil && read.isAtLeast(18) == nil)
        #expect(read.problems == ["DBB: birth date 2030-01-01 is after today (2026-11-25)"])
    }

    @Test(arguments: [-3, -1, 1, 2, 8])
    func offsetsOffByAFewBytesStillFindTheirSubfiles(error: Int) throws {
        let file = AAMVABuilder(
            version: 9,
            [
                ("DL", AAMVABuilder.version8().subfiles[0].elements),
                ("ZV", [("ZVA", "01"), ("ZVB", "SAMPLE")]),
            ])
        let read = try AAMVA.parse(file.bytes(offsetError: error), today: aamvaToday).get()
        #expect(read.customerID == "X00012345")
        #expect(read.jurisdictionElements == ["ZVA": "01", "ZVB": "SAMPLE"])
    }

    @Test func anOffsetOf0000OrLettersIsSearchedFor() throws {
        let text = AAMVABuilder(version: 8, [("DL", AAMVABuilder.version8().subfiles[0].elements)]).text()
        for offset in ["0000", "abac"] {
            let broken = text.replacingFirst("DL0031", with: "DL" + offset)
            let read = try AAMVA.parse(Array(broken.utf8), today: aamvaToday).get()
            #expect(read.customerID == "X00012345")
        }
    }

    @Test func aWedgesCarriageReturnsBeforeLineFeedsAreTolerated() throws {
        // A keyboard wedge's Enter: CR LF in the header, LF CR at the end of each subfile.
        let text = AAMVABuilder(version: 8, [("DL", AAMVABuilder.version8().subfiles[0].elements)]).text()
        let mangled = text.replacingFirst("@\n\u{1E}\r", with: "@\r\n\u{1E}\r").replacingFirst("\r", with: "\n\r", from: 30)
        let read = try AAMVA.parse(Array(mangled.utf8), today: aamvaToday).get()
        #expect(read.customerID == "X00012345" && read.problems.isEmpty)
    }

    @Test func severalSubfilesTheFirstDocumentCounts() throws {
        let file = AAMVABuilder(
            version: 10, iin: "636026",
            [
                ("ZA", [("ZAA", "FIRST")]),
                ("ID", AAMVABuilder.version8().subfiles[0].elements),
                ("ZB", [("ZBA", "SECOND"), ("ZAA", "REPEATED")]),
            ])
        let read = try #require(aamvaDocument(file.text()))
        #expect(read.kind == .identificationCard && read.issuer?.code == "AZ")
        #expect(read.jurisdictionElements == ["ZAA": "FIRST", "ZBA": "SECOND"])
    }

    @Test func everyPrefixOfADocumentFailsWithoutCrashing() {
        for example in [aamvaStandardExample2020, aamvaStandardExample2025, AAMVABuilder.version8().text()] {
            let bytes = Array(example.utf8)
            for length in 0..<bytes.count {
                #expect(aamvaFailure(Array(bytes.prefix(length))) != nil, "\(length) of \(bytes.count) bytes")
            }
        }
    }

    @Test func mutatedDocumentsNeverCrash() {
        var random = SeededGenerator(seed: 35)
        let original = Array(aamvaStandardExample2020.utf8)
        // Bytes that steer the parser: digits, separators, IDs' letters, and the high half.
        let interesting: [UInt8] = Array("0123456789@ANSIDLZ\n\r\u{1E}".utf8) + [0x00, 0x7F, 0xFF]
        var outcomes = (documents: 0, failures: 0)
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0...(random.next() % 4) {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[index] = interesting[Int(random.next() % UInt64(interesting.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                }
            }
            switch AAMVA.parse(bytes, today: aamvaToday) {
            case .success: outcomes.documents += 1
            case .failure(let error): outcomes.failures += error.message.isEmpty ? 0 : 1
            }
        }
        #expect(outcomes.documents + outcomes.failures == 3000)
        #expect(outcomes.documents > 100 && outcomes.failures > 100, "\(outcomes)")
    }

    @Test func hugeNumbersInTheHeaderDoNotOverflow() {
        let text = "@\n\u{1E}\rANSI 999999999999DL99999999DLDAQ1\r"
        #expect(aamvaFailure(Array(text.utf8)) == "subfile directory: entry 2 of 99 ends past the data (38 bytes)")
    }
}

extension String {
    /// The text with the first `target` at or after character `from` replaced.
    func replacingFirst(_ target: String, with replacement: String, from: Int = 0) -> String {
        let start = index(startIndex, offsetBy: min(from, count))
        guard let range = self[start...].range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
