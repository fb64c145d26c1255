import Documents
import Testing

/// The day the tests read documents on, as the scanner would pass its local date.
let aamvaToday = CalendarDate(year: 2026, month: 11, day: 25)

/// Reads `text` and returns the document, or records the failure.
func aamvaDocument(_ text: String, thresholds: [Int] = [18, 21], sourceLocation: SourceLocation = #_sourceLocation)
    -> IDDocument?
{
    switch AAMVA.parse(Array(text.utf8), today: aamvaToday, ageThresholds: thresholds) {
    case .success(let document): return document
    case .failure(let error):
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The message a read of `bytes` fails with, or nil if it succeeds.
func aamvaFailure(_ bytes: [UInt8]) -> String? {
    if case .failure(let error) = AAMVA.parse(bytes, today: aamvaToday) { return error.message }
    return nil
}

/// The 2020 standard's example (Annex D, D.12.7): version 10, a DL subfile and Virginia's ZV.
let aamvaStandardExample2020 =
    "@\n\u{1E}\rANSI 636000100102DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\n"
    + "DADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062019\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\n"
    + "DAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\n"
    + "DCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDC06062020\nDDD1\rZVZVA01\r"

/// The 2025 standard's example: version 11, a holder under 21, and DDJ (under 21 until).
let aamvaStandardExample2025 =
    "@\n\u{1E}\rANSI 636000110002DL00410277ZV03180008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\n"
    + "DADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062022\nDBB06062006\nDBA06062027\nDBC1\nDAU068 in\n"
    + "DAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000 \nDCF2424244747474786102204\n"
    + "DCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDJ06062027\nDDD1\rZVZVA01\r"

@Suite struct AAMVATests {
    @Test func theStandardsExampleGivesEveryField() throws {
        let read = try #require(aamvaDocument(aamvaStandardExample2020))
        #expect(
            read.fields == [
                DocumentField("document_type", .text("DL")),
                DocumentField("issuer", .text("Virginia")),
                DocumentField("issuer_country", .text("USA")),
                DocumentField("issuer_iin", .text("636000")),
                DocumentField("aamva_version", .number(10)),
                DocumentField("jurisdiction_version", .number(1)),
                DocumentField("family_name", .text("SAMPLE")),
                DocumentField("family_name_truncated", .flag(false)),
                DocumentField("given_name", .text("MICHAEL")),
                DocumentField("given_name_truncated", .flag(false)),
                DocumentField("middle_name", .text("JOHN")),
                DocumentField("middle_name_truncated", .flag(false)),
                DocumentField("suffix", .text("JR")),
                DocumentField("birth_date", .text("1986-06-06")),
                DocumentField("issue_date", .text("2019-06-06")),
                DocumentField("expiry_date", .text("2024-12-10")),
                DocumentField("sex", .text("M")),
                DocumentField("customer_id", .text("T64235789")),
                DocumentField("street", .text("2300 WEST BROAD STREET")),
                DocumentField("city", .text("RICHMOND")),
                DocumentField("jurisdiction_code", .text("VA")),
                DocumentField("postal_code", .text("23269")),
                DocumentField("country", .text("USA")),
                DocumentField("age", .number(40)),
                DocumentField("age_over_18", .flag(true)),
                DocumentField("age_over_21", .flag(true)),
                DocumentField("expired", .flag(true)),
            ])
        #expect(read.problems.isEmpty)
        #expect(read.jurisdictionElements == ["ZVA": "01"])
        #expect(read.elements["DCF"] == "2424244747474786102204")
    }

    @Test func theCurrentStandardsExampleIsUnder21() throws {
        let read = try #require(aamvaDocument(aamvaStandardExample2025, thresholds: [18, 21, 25]))
        #expect(read.aamvaVersion == AAMVA.currentVersion)
        #expect(read.jurisdictionVersion == 0)
        #expect(read.birthDate == CalendarDate(year: 2006, month: 6, day: 6))
        #expect(read.age == 20)
        #expect(read.isAtLeast(18) == true && read.isAtLeast(21) == false)
        #expect(read.fields.filter { $0.name.hasPrefix("age_over_") }.map(\.name) == ["age_over_18", "age_over_21", "age_over_25"])
        #expect(read.expired == false)
        #expect(read.elements["DDJ"] == "06062027")
    }

    @Test func ageThresholdsKeepTheCallersOrderOnceEach() throws {
        let read = try #require(aamvaDocument(aamvaStandardExample2025, thresholds: [21, 18, 21, -1, 500, 19]))
        let checks = read.fields.filter { $0.name.hasPrefix("age_over_") }
        #expect(
            checks == [
                DocumentField("age_over_21", .flag(false)), DocumentField("age_over_18", .flag(true)),
                DocumentField("age_over_19", .flag(true)),
            ])
    }

    @Test func looksLikeDocumentWantsTheHeader() {
        #expect(AAMVA.looksLikeDocument(Array(aamvaStandardExample2020.utf8)))
        #expect(AAMVA.looksLikeDocument(Array("@\n\u{1E}\rAAMVA6360000101DL".utf8)))
        // A keyboard wedge's CR LF for LF still looks like one.
        #expect(AAMVA.looksLikeDocument(Array("@\r\n\u{1E}\rANSI 6360".utf8)))
        for text in ["", "@", "@\n\u{1E}\rANS", "ANSI 636000", "M1DOE/JOHN", "@\n\u{1E}\rPDF417 data", "x@\n\u{1E}\rANSI "] {
            #expect(!AAMVA.looksLikeDocument(Array(text.utf8)), "\(text.debugDescription)")
        }
    }

    @Test func version1NamesTheHolderInOneElementAndWritesDatesYearFirst() throws {
        let file = AAMVABuilder(
            version: 1, iin: "636005",
            [
                (
                    "DL",
                    [
                        ("DAQ", "102639206"), ("DAA", "TESTER,MARY,ANN,"), ("DAG", "209 CEDAR HILL DR UNIT 12"),
                        ("DAI", "SURFSIDE BEACH"), ("DAJ", "SC"), ("DAK", "295754321  "), ("DAY", "   "),
                        ("DBA", "20290212"), ("DBB", "19720212"), ("DBC", "F"), ("DBD", "20190619"),
                    ]
                )
            ])
        let read = try #require(aamvaDocument(file.text()))
        #expect(read.jurisdictionVersion == nil)
        #expect(read.issuer?.name == "South Carolina")
        #expect(read.familyName == "TESTER" && read.givenName == "MARY" && read.middleName == "ANN")
        #expect(read.suffix == nil)
        #expect(read.birthDate == CalendarDate(year: 1972, month: 2, day: 12) && read.expiryDate == CalendarDate(year: 2029, month: 2, day: 12))
        #expect(read.sex == .female)
        #expect(read.postalCode == "29575-4321")
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(!read.fields.contains { $0.name == "jurisdiction_version" })
    }

    @Test func version3HasGivenNamesTogether() throws {
        let file = AAMVABuilder(
            version: 3, iin: "636014",
            [
                (
                    "ID",
                    [
                        ("DAQ", "Z1234567"), ("DCS", "EXAMPLE"), ("DCT", "JANE,QUINN,RAE"), ("DBA", "01312030"),
                        ("DBB", "01311990"), ("DBC", "2"), ("DBD", "01312020"), ("DAG", "1 TEST WAY"),
                        ("DAI", "FRESNO"), ("DAJ", "CA"), ("DAK", "93650"), ("DCG", "USA"),
                    ]
                )
            ])
        let read = try #require(aamvaDocument(file.text()))
        #expect(read.kind == .identificationCard)
        #expect(read.givenName == "JANE" && read.middleName == "QUINN,RAE")
        #expect(read.birthDate == CalendarDate(year: 1990, month: 1, day: 31))
        #expect(read.postalCode == "93650")
        #expect(read.problems.isEmpty, "\(read.problems)")
    }

    @Test func theOlderFileTypeVersion0AndLaterVersionsStillRead() throws {
        // Cards from before the 2000 standard wrote AAMVA for the file type and version 0, with
        // version 1's header (no jurisdiction version).
        var file = AAMVABuilder.version8(birth: "19900704")
        file.fileType = "AAMVA"
        file.version = 0
        var read = try #require(aamvaDocument(file.text()))
        #expect(read.aamvaVersion == 0 && read.jurisdictionVersion == nil)
        #expect(read.birthDate == CalendarDate(year: 1990, month: 7, day: 4))
        // A version after the current one is read as the current one.
        file = AAMVABuilder.version8()
        file.version = AAMVA.currentVersion + 1
        read = try #require(aamvaDocument(file.text()))
        #expect(read.aamvaVersion == 12 && read.customerID == "X00012345" && read.problems.isEmpty)
    }

    @Test func version8ReadsLikeTheCurrentOne() throws {
        let read = try #require(aamvaDocument(AAMVABuilder.version8(birth: "02292008").text()))
        #expect(read.aamvaVersion == 8)
        #expect(read.familyName == "MODEL" && read.givenName == "AVERY" && read.middleName == nil)
        #expect(read.familyNameTruncated == true && read.givenNameTruncated == false && read.middleNameTruncated == nil)
        #expect(read.age == 18 && read.isAtLeast(21) == false)
        #expect(read.sex == .unspecified)
        #expect(read.street2 == "APT 2")
    }

    @Test(arguments: [("02282008", 18), ("11252008", 18), ("11262008", 17), ("11251986", 40)])
    func ageCountsWholeYears(birth: String, age: Int) throws {
        let read = try #require(aamvaDocument(AAMVABuilder.version8(birth: birth).text()))
        #expect(read.age == age)
        #expect(read.isAtLeast(18) == (age >= 18))
    }

    @Test func aLeapDayBirthdayComesOnMarchFirst() throws {
        let bytes = AAMVABuilder.version8(birth: "02292008").bytes()
        for (day, age) in [((2, 28), 17), ((3, 1), 18)] {
            let date = CalendarDate(year: 2026, month: day.0, day: day.1)
            #expect(try AAMVA.parse(bytes, today: date).get().age == age, "\(date)")
        }
    }

    @Test(arguments: [("11242026", true), ("11252026", false), ("01012030", false)])
    func aDocumentIsValidThroughItsExpiryDay(expiry: String, expired: Bool) throws {
        let read = try #require(aamvaDocument(AAMVABuilder.version8(expiry: expiry).text()))
        #expect(read.expired == expired)
    }

    @Test func canadaWritesDatesYearFirst() throws {
        // Ontario's IIN, and DCG CAN: both say Canada.
        var file = AAMVABuilder.version8(iin: "636012", birth: "19900131", expiry: "20301231", country: "CAN")
        var read = try #require(aamvaDocument(file.text()))
        #expect(read.birthDate == CalendarDate(year: 1990, month: 1, day: 31) && read.expiryDate == CalendarDate(year: 2030, month: 12, day: 31))
        #expect(read.issuer?.country == "CAN")
        // Without DCG the issuer decides: Ontario.
        file.subfiles[0].elements.removeAll { $0.0 == "DCG" }
        read = try #require(aamvaDocument(file.text()))
        #expect(read.birthDate == CalendarDate(year: 1990, month: 1, day: 31))
        #expect(read.problems == ["missing mandatory DCG"])
        // DCG wins over the IIN: a U.S. order from an unknown issuer.
        file = AAMVABuilder.version8(iin: "999999", birth: "01311990", country: "USA")
        read = try #require(aamvaDocument(file.text()))
        #expect(read.birthDate == CalendarDate(year: 1990, month: 1, day: 31))
        #expect(read.issuer == nil && read.problems == ["IIN 999999 is not in AAMVA's table"])
    }

    @Test func aDateInTheOtherOrderIsStillRead() throws {
        // Wyoming's 2009 cards wrote CCYYMMDD though they are U.S. documents.
        let read = try #require(aamvaDocument(AAMVABuilder.version8(birth: "19900131").text()))
        #expect(read.birthDate == CalendarDate(year: 1990, month: 1, day: 31))
    }

    @Test(arguments: [
        ("M4A 1B2", "M4A 1B2"), ("m4a1b2", "M4A 1B2"), ("M4A1B2    ", "M4A 1B2"),
    ])
    func canadianPostalCodes(raw: String, expected: String) throws {
        let read = try #require(aamvaDocument(AAMVABuilder.version8(iin: "636012", postal: raw, country: "CAN").text()))
        #expect(read.postalCode == expected)
    }

    @Test(arguments: [
        ("232690000", "23269"), ("232691234", "23269-1234"), ("23269-1234", "23269-1234"),
        ("23269", "23269"), ("232690000  ", "23269"), ("2326", "2326"),
    ])
    func usPostalCodes(raw: String, expected: String) throws {
        let read = try #require(aamvaDocument(AAMVABuilder.version8(postal: raw).text()))
        #expect(read.postalCode == expected)
    }
}

extension AAMVABuilder {
    /// A version 8 DL with every element the parser reads; the arguments change one each.
    static func version8(
        iin: String = "636000", birth: String = "07041990", expiry: String = "07042030",
        postal: String = "232690000", country: String = "USA"
    ) -> AAMVABuilder {
        AAMVABuilder(
            version: 8, iin: iin,
            [
                (
                    "DL",
                    [
                        ("DAQ", "X00012345"), ("DCA", "D"), ("DCB", "NONE"), ("DCD", "NONE"), ("DBA", expiry),
                        ("DCS", "MODEL"), ("DAC", "AVERY"), ("DAD", "NONE"), ("DBD", "07042022"), ("DBB", birth),
                        ("DBC", "9"), ("DAY", "GRN"), ("DAU", "066 in"), ("DAG", "77 EXAMPLE ROAD"), ("DAH", "APT 2"),
                        ("DAI", "SPRINGFIELD"), ("DAJ", "VA"), ("DAK", postal), ("DCF", "DOC0001"), ("DCG", country),
                        ("DDE", "T"), ("DDF", "N"), ("DDG", "U"),
                    ]
                )
            ])
    }
}
