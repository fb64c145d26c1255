import Codes
import ConfigFile
import Documents
import Foundation
import Imaging
import ScannerTestSupport
import Testing

/// The kiosk-document keys: `documents`, `id`, `boarding_pass`, the `document` criterion and the
/// `id_template` action; and the examples of docs/documents.md.
@Suite struct DocumentsConfigTests {
    @Test func readsEveryKey() throws {
        let config = try ConfigFile.parse(
            """
            documents: true
            id:
              fields: [issuer, age_over_*, age_over_25, expired, birth_date]
              raw: true
              age_thresholds: [19, 25]
            boarding_pass:
              fields: [passenger_name, legs]
              raw: true
            socket:
              rules:
                - when: { document: id }
                  do:
                    - id_template:
                        fields: [family_name, given_name, birth_date, sex, age_over_19]
                        date_format: MM/DD/YYYY
                        sex: 1/2
                        separator: "|"
                        terminator: '\\r\\n'
            outputs:
              - type: serial
                device: /dev/ttyS0
                rules:
                  - when: { document: boarding_pass }
                    do: [id_template: { fields: [passenger_family_name, seat, flight_date] }]
            """, file: "d.conf")
        var expected = DocumentsConfig()
        expected.id = DocumentsConfig.Policy(fields: ["issuer", "age_over_*", "age_over_25", "expired", "birth_date"], raw: true)
        expected.ageThresholds = [19, 25]
        expected.boardingPass = DocumentsConfig.Policy(fields: ["passenger_name", "legs"], raw: true)
        #expect(config.pipeline.documents == expected)
        var template = DocumentTemplate(fields: ["family_name", "given_name", "birth_date", "sex", "age_over_19"])
        template.dateFormat = "MM/DD/YYYY"
        template.sex = .digits
        template.separator = [0x7C]
        template.terminator = [0x0D, 0x0A]
        #expect(config.socket.formatting.rules.first?.criteria.document == .id)
        #expect(config.socket.formatting.rules.first?.actions == [.template(template)])
        let passRule = try #require(config.outputs.first?.format.formatting.rules.first)
        #expect(passRule.criteria.document == .boardingPass)
        #expect(passRule.actions == [.template(DocumentTemplate(fields: ["passenger_family_name", "seat", "flight_date"]))])
    }

    @Test func withoutKeysTheDefaults() throws {
        #expect(try ConfigFile.parse("id:\nboarding_pass:\n", file: "e.conf").pipeline.documents == DocumentsConfig())
        #expect(try ConfigFile.parse("documents: false\n", file: "off.conf").pipeline.documents.enabled == false)
        // No fields at all: the read carries an empty `id`, and a template can still send some.
        #expect(try ConfigFile.parse("id:\n  fields: []\n", file: "none.conf").pipeline.documents.id.fields == [])
        let template = try ConfigFile.parse("socket:\n  rules:\n    - do: [id_template: { fields: [age] }]\n", file: "t.conf").socket.formatting.rules
        #expect(template.first?.actions == [.template(DocumentTemplate(fields: ["age"]))], "date YYYY-MM-DD, sex M/F, a Tab between, nothing after")
        #expect(template.first?.criteria.document == nil)
    }

    /// A Tab as the YAML string "\t" or as the framing's escape `\t`.
    @Test(arguments: ["\"\\t\"", "'\\t'", "<TAB>"])
    func aTabSeparatorEitherWay(written: String) throws {
        let rules = try ConfigFile.parse("socket:\n  rules:\n    - do: [id_template: { fields: [age, sex], separator: \(written) }]\n", file: "t.conf")
            .socket.formatting.rules
        guard case .template(let template)? = rules.first?.actions.first else {
            Issue.record("no template")
            return
        }
        #expect(template.separator == [0x09])
    }

    /// Each bad file names the line and the key that is wrong.
    @Test(arguments: BadConfig.documents) func errorsNameLineAndKey(_ file: BadConfig) { file.expectRefused() }

    /// docs/documents.md's three examples, each a whole config file: they parse, and do what their
    /// comment says.
    @Test func theDocumentationsExamplesParseAndDoWhatTheySay() throws {
        let blocks = try Markdown.codeBlocks("yaml", in: "docs/documents.md", after: "\n## Examples")
        try #require(blocks.count == 3)
        let configs = try blocks.map { try ConfigFile.parse($0, file: "docs/documents.md") }
        let today = CalendarDate(year: 2026, month: 11, day: 25)
        func read(_ config: ScannerConfig, _ symbology: Symbology, _ text: String) -> Read {
            var read = Read(
                symbol: Symbol(
                    symbology: symbology, bytes: Array(text.utf8),
                    corners: Corners([Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)])),
                frame: Size(width: 1, height: 1))
            read.readDocument(config.pipeline.documents, today: today)
            return read
        }

        // 1. An age-check kiosk: the socket's consumer gets age_over_21 of a licence, and nothing else.
        let ageCheck = read(configs[0], .pdf417, licence)
        #expect(ageCheck.id == DocumentFields([DocumentField("age_over_21", .flag(true))]))
        #expect(ageCheck.text == nil && ageCheck.bytes.isEmpty)
        #expect(configs[0].socket.formatting.shownText(for: ageCheck) == "age_over_21=true", "the plain line")
        #expect(configs[0].pipeline.documents.ageThresholds == [21])

        // 2. A check-in kiosk: the passenger's name and every leg of a boarding pass.
        let checkIn = try #require(read(configs[1], .aztec, pass).boardingPass)
        #expect(checkIn.fields.map(\.name) == ["passenger_family_name", "passenger_given_name", "legs"])
        guard case .records(let legs) = checkIn.fields[2].value else {
            Issue.record("no legs")
            return
        }
        #expect(legs.first?.first { $0.name == "seat" }?.value == .text("1A"))

        // 3. A keyboard wedge: family name, given name and birth date (MM/DD/YYYY), Tab-separated, then Enter.
        let wedge = try #require(configs[2].outputs.first)
        #expect(wedge.format.bytes(for: read(configs[2], .pdf417, licence)) == Array("SAMPLE\tMICHAEL\t06/06/1986\r".utf8))
        #expect(wedge.format.bytes(for: read(configs[2], .ean13, "4006381333931")) == Array("4006381333931\r".utf8), "other codes as they are")
    }

    /// The AAMVA standard's 2020 example (Tests/DocumentsTests/AAMVATests.swift), all data made up.
    let licence =
        "@\n\u{1E}\rANSI 636000100102DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\n"
        + "DADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062019\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\n"
        + "DAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\n"
        + "DCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDC06062020\nDDD1\rZVZVA01\r"
    /// A made-up one-leg boarding pass.
    let pass = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100"
}
