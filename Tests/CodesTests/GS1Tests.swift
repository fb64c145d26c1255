import Codes
import Testing

@Suite struct GS1Tests {
    @Test func parsesFixedAndVariableElementStrings() throws {
        let elements = try GS1.parse("0109506000134352" + "17261231" + "10AB-12\u{1D}" + "21XYZ", currentYear: 2026)
        #expect(elements.map(\.ai) == ["01", "17", "10", "21"])
        #expect(elements.map(\.value) == ["09506000134352", "261231", "AB-12", "XYZ"])
        #expect(elements[0].title == "GTIN")
        #expect(elements[1].date == "2026-12-31")
    }

    @Test(arguments: [
        ("09506000134352", true), ("09506000134353", false), ("4006381333931", true), ("12345670", true), ("1234567", false),
    ])
    func checkDigit(digits: String, valid: Bool) {
        #expect(GS1.hasValidCheckDigit(digits) == valid)
    }

    @Test func wrongGTINCheckDigitIsAnError() {
        #expect(throws: GS1Error.self) { try GS1.parse("0109506000134353", currentYear: 2026) }
    }

    @Test(arguments: [
        ("11991231", 2026, "1999-12-31"), ("15260101", 2026, "2026-01-01"), ("17760630", 2026, "2076-06-30"),
        ("17770630", 2026, "1977-06-30"), ("15250100", 2026, "2025-01-00"),
    ])
    func datesUseTheSlidingCentury(data: String, year: Int, iso: String) throws {
        #expect(try GS1.parse(data, currentYear: year).first?.date == iso)
    }

    @Test(arguments: ["17261331", "1126AB01", "11260132"])
    func badDatesAreErrors(data: String) {
        #expect(throws: GS1Error.self) { try GS1.parse(data, currentYear: 2026) }
    }

    @Test func variableLengthStopsAtGroupSeparator() throws {
        let elements = try GS1.parse("10BATCH\u{1D}" + "3103000123" + "400PO-77", currentYear: 2026)
        #expect(elements.map(\.ai) == ["10", "3103", "400"])
        #expect(elements[1].value == "000123")
        #expect(elements[1].title == "NET WEIGHT (kg)")
    }

    @Test func tooLongVariableDataIsAnError() {
        let error = #expect(throws: GS1Error.self) { try GS1.parse("10" + String(repeating: "A", count: 21), currentYear: 2026) }
        #expect(error?.reason.contains("at most 20") == true)
    }

    @Test func unknownAIAndTruncatedDataAreErrors() {
        #expect(throws: GS1Error.self) { try GS1.parse("2312345", currentYear: 2026) }
        #expect(throws: GS1Error.self) { try GS1.parse("01095060", currentYear: 2026) }
        #expect(throws: GS1Error.self) { try GS1.parse("", currentYear: 2026) }
    }
}
