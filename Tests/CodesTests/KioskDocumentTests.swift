import Codes
import Documents
import Foundation
import ScannerTestSupport
import Testing

/// The AAMVA standard's 2020 example (Tests/DocumentsTests/AAMVATests.swift): a Virginia licence, all
/// data made up. Born 1986-06-06, expired 2024-12-10, male.
let licence2020 =
    "@\n\u{1E}\rANSI 636000100102DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\n"
    + "DADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062019\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\n"
    + "DAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\n"
    + "DCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDC06062020\nDDD1\rZVZVA01\r"

/// A one-leg boarding pass (IATA Resolution 792's layout), made up: Montreal to Frankfurt, day 326.
let passOneLeg = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100"

/// Parsing a read's data as a kiosk document, the privacy the config chooses, and the `id_template`
/// that sends a document's fields to a wedge or a serial port.
@Suite struct KioskDocumentTests {
    static let today = CalendarDate(year: 2026, month: 11, day: 25)

    static func read(_ symbology: Symbology, _ text: String) -> Read {
        Read.sample(symbology, text)
    }

    static func parsed(_ symbology: Symbology, _ text: String, _ config: DocumentsConfig = DocumentsConfig(), today: CalendarDate = today) -> Read {
        var read = read(symbology, text)
        read.readDocument(config, today: today)
        return read
    }

    @Test func byDefaultALicenceGivesOnlyIssuerAgesAndExpiryAndWithholdsItsData() throws {
        let read = Self.parsed(.pdf417, licence2020)
        #expect(
            read.id
                == DocumentFields([
                    DocumentField("issuer", .text("Virginia")), DocumentField("age_over_18", .flag(true)), DocumentField("age_over_21", .flag(true)),
                    DocumentField("expired", .flag(true)),
                ]))
        #expect(read.text == nil && read.bytes.isEmpty && read.rawWithheld == true)
        #expect(read.idError == nil && read.boardingPass == nil)
        #expect(read.documentSummary == "issuer=Virginia age_over_18=true age_over_21=true expired=true")
        // Every field stays in memory, for templates; the JSON has only the chosen ones.
        #expect(read.document?.kind == .id && read.document?.field("family_name") == .text("SAMPLE"))
        let json = String(decoding: try JSONEncoder().encode(read), as: UTF8.self)
        #expect(!json.contains("SAMPLE") && !json.contains("1986") && json.contains("\"raw_withheld\":true"))
    }

    @Test func rawTrueKeepsTheTextAndBytes() {
        var config = DocumentsConfig()
        config.id.raw = true
        let read = Self.parsed(.pdf417, licence2020, config)
        #expect(read.text == licence2020 && read.bytes == Data(licence2020.utf8))
        #expect(read.rawWithheld == nil && read.id?.fields.map(\.name) == ["issuer", "age_over_18", "age_over_21", "expired"])
    }

    @Test func ageOverGlobGivesEachConfiguredThreshold() {
        var config = DocumentsConfig()
        config.ageThresholds = [19, 25]
        config.id.fields = ["age_over_*"]
        // Nineteen on the day.
        let read = Self.parsed(.pdf417, licence2020, config, today: CalendarDate(year: 2005, month: 6, day: 6))
        #expect(read.id == DocumentFields([DocumentField("age_over_19", .flag(true)), DocumentField("age_over_25", .flag(false))]))
    }

    @Test(arguments: [(Symbology.ean13, "4006381333931"), (.qr, "https://shop.example/promo"), (.pdf417, "shipping label 42")])
    func aCodeThatIsNoDocumentIsLeftAsItIs(symbology: Symbology, text: String) {
        let read = Self.read(symbology, text)
        var parsed = read
        parsed.readDocument(DocumentsConfig(), today: Self.today)
        #expect(parsed == read)
    }

    @Test func aMalformedLicenceKeepsItsReadWithTheErrorAndWithholdsItsData() {
        let read = Self.parsed(.pdf417, licence2020.replacing("DBC1", with: "DBC7"))
        #expect(read.idError == "DBC: not a sex code (1, 2 or 9): 7")
        #expect(read.id == DocumentFields([]) && read.document?.kind == .id)
        #expect(read.text == nil && read.bytes.isEmpty && read.rawWithheld == true)
    }

    @Test(arguments: [Symbology.pdf417, .aztec, .qr])
    func aBoardingPassGivesItsNameAndLegs(symbology: Symbology) throws {
        let read = Self.parsed(symbology, passOneLeg)
        let pass = try #require(read.boardingPass)
        #expect(pass.fields.map(\.name) == ["legs_count", "passenger_name", "passenger_family_name", "passenger_given_name", "legs"])
        #expect(pass.fields[1] == DocumentField("passenger_name", .text("DESMARAIS/LUC")))
        #expect(read.id == nil && read.text == nil && read.rawWithheld == true)
        #expect(read.document?.field("seat") == .text("1A"), "a template reaches the first leg's fields")
    }

    @Test func aTextThatLooksLikeAPassButDoesNotParseStaysAnOrdinaryRead() {
        // The leg's variable size field announces 0xFF characters; three follow.
        let text = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 1FF>6"
        #expect(BCBP.looksLikePass(text))
        let read = Self.read(.qr, text)
        var parsed = read
        parsed.readDocument(DocumentsConfig(), today: Self.today)
        #expect(parsed == read)
    }

    /// The names the config checks `fields:` and templates against are those the parsers give.
    @Test func theKnownFieldNamesAreThoseTheParsersGive() throws {
        let licence = try #require(Self.parsed(.pdf417, licence2020).document)
        #expect(licence.fields.map(\.name) == KioskDocument.Kind.id.fieldNames(ageThresholds: [18, 21]).filter { $0 != "street_2" })
        let fourLegs =
            "M4LINDQVIST/ERIK DR   EK3LM9P ARNCPHSK 0403 360C003D0012 138>8322MM6360BSK 01170001110020117000222001011700033300100"
            + "K3LM9P CPHKEFFI 0205 361C002A0003 100" + "K3LM9P KEFJFKFI 0615 361C001K0004 100" + "K3LM9P JFKBOSB6 1234 001Y017B0100 100^20ASIGNATURE0"
        let pass = try #require(Self.parsed(.aztec, fourLegs).document)
        #expect(pass.fields.map(\.name) == KioskDocument.Kind.boardingPass.fieldNames(ageThresholds: []))
        guard case .records(let legs)? = pass.field("legs") else {
            Issue.record("no legs")
            return
        }
        #expect(legs.count == 4 && legs.allSatisfy { $0.allSatisfy { KioskDocument.Kind.legFieldNames.contains($0.name) } })
    }
}

/// `DocumentTemplate.render`: a document's fields as one line.
@Suite struct DocumentTemplateTests {
    static let licence = KioskDocumentTests.parsed(.pdf417, licence2020).document!

    static func rendered(_ template: DocumentTemplate, _ document: KioskDocument = licence) -> String {
        String(decoding: template.render(document), as: UTF8.self)
    }

    @Test(arguments: [
        ("YYYY-MM-DD", "2024-12-10"), ("MM/DD/YYYY", "12/10/2024"), ("DD.MM.YY", "10.12.24"), ("YYYYMMDD", "20241210"), ("expires DD/MM", "expires 10/12"),
    ])
    func datesAsTheFormatSays(format: String, expected: String) {
        var template = DocumentTemplate(fields: ["expiry_date"])
        template.dateFormat = format
        #expect(Self.rendered(template) == expected)
    }

    @Test(arguments: [("M", "1"), ("F", "2"), ("X", "9")])
    func sexAsDigits(letter: String, digit: String) {
        let document = KioskDocument(kind: .id, fields: [DocumentField("sex", .text(letter))])
        var template = DocumentTemplate(fields: ["sex"])
        #expect(Self.rendered(template, document) == letter)
        template.sex = .digits
        #expect(Self.rendered(template, document) == digit)
    }

    @Test func separatorAndTerminatorAreTheConfigs() {
        var template = DocumentTemplate(fields: ["family_name", "given_name", "age_over_21"])
        #expect(Self.rendered(template) == "SAMPLE\tMICHAEL\tY", "a Tab between by default, nothing after")
        template.separator = Array("|".utf8)
        template.terminator = [0x0D, 0x0A]
        #expect(Self.rendered(template) == "SAMPLE|MICHAEL|Y\r\n")
    }

    @Test func aFieldTheDocumentLacksIsSentEmpty() {
        #expect(Self.rendered(DocumentTemplate(fields: ["family_name", "street_2", "city"])) == "SAMPLE\t\tRICHMOND")
    }

    @Test func controlCharactersInValuesAreDropped() {
        let document = KioskDocument(kind: .id, fields: [DocumentField("family_name", .text("SAM\tPLE\r\n")), DocumentField("city", .text("R\u{1B}OME"))])
        #expect(Self.rendered(DocumentTemplate(fields: ["family_name", "city"]), document) == "SAMPLE\tROME")
    }

    /// A keyboard wedge drops control characters from what it types, but a template's Tab is the config's own.
    @Test func aWedgeTypesATemplatesTabAndNothingOfAWithheldDocumentWithoutOne() {
        var template = DocumentTemplate(fields: ["family_name", "given_name", "birth_date"])
        template.dateFormat = "MM/DD/YYYY"
        var criteria = FormatRule.Criteria()
        criteria.document = .id
        var wedge = OutputFormat.keyboard
        wedge.formatting.rules = [FormatRule(criteria: criteria, actions: [.template(template)])]
        var read = KioskDocumentTests.parsed(.pdf417, licence2020)
        #expect(wedge.bytes(for: read).map { String(decoding: $0, as: UTF8.self) } == "SAMPLE\tMICHAEL\t06/06/1986\r")
        read.document = KioskDocument(kind: .id, fields: [DocumentField("family_name", .text("SAM\tPLE"))])
        #expect(wedge.bytes(for: read).map { String(decoding: $0, as: UTF8.self) } == "SAMPLE\t\t\r")
        // Other codes go as they are.
        #expect(wedge.bytes(for: KioskDocumentTests.read(.ean13, "4006381333931")) == Array("4006381333931\r".utf8))
        // Without a template, a withheld document is sent as nothing.
        #expect(OutputFormat.keyboard.bytes(for: KioskDocumentTests.parsed(.pdf417, licence2020)) == nil)
        // A pass does not match `document: id`, so the wedge sends nothing of it either.
        #expect(wedge.bytes(for: KioskDocumentTests.parsed(.qr, passOneLeg)) == nil)
    }
}
