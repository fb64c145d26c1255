import Documents
import Testing

/// Passes from the IATA BCBP Implementation Guide (5th edition, June 2016) and Resolution 792 Attachment B, as
/// transcribed in the tests of github.com/martinmroz/iata_bcbp (tests/iata_792_b.rs, tests/guide.rs); the
/// guide's own names are test data. The security data is the guide's placeholder string.
enum GuidePasses {
    static let security = "GIWVC5EH7JNT684FVNJ91W2QA4DVN5J8K4F0L0GEQ3DF5TGBN8709HKT5D3DW3GBHFCVHMY7J5T6HFR41W2QA4DVN5J8K4F0L0GE"
    /// Attachment B example 1: mandatory items and security data.
    static let mandatoryAndSecurity = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100^164" + security
    /// Attachment B example 2: two legs, version 6 conditional items, airline data, security data.
    static let twoLegs =
        "M2DESMARAIS/LUC       EABC123 YULFRAAC 0834 226F001A0025 14D>6181WW6225BAC 00141234560032A0141234567890 1AC AC 1234567890123    20KYLX58Z"
        + "DEF456 FRAGVALH 3664 227C012C0002 12E2A0140987654321 1AC AC 1234567890123    2PCNWQ^164" + security
    /// Guide appendix B.1.1, a home-printed pass (version 2; note the airline data's trailing spaces).
    static let homePrinted =
        "M1TEST/HIDDEN         E8OQ6FU FRARLGLH 4010 012C004D0001 35C>2180WW6012BLH              2922023642241060 LH                        *30600000K09         "
    /// Guide appendix B.1.2, a home-printed pass with version 5 and a three-item unique section.
    static let shortUnique = "M1TEST/PETER          E24Z5RN AMSBRUKL 1733 019M008A0001 316>503  W0D0742497067621"
    /// Guide appendix B.2.1, printed at a kiosk (version 3).
    static let kiosk =
        "M1ASKREN/TEST         EA272SL ORDNRTUA 0881 007F002K0303 15C>3180 K6007BUA              2901624760758980 UA UA EY975897            *30600    09  UAG    "
    /// Guide appendix B.3.2, a UA mobile pass: the kiosk pass with an ECDSA signature (96 base64 characters) as security data.
    /// As transcribed in the test suite of the Rust crate `iata` (docs.rs/iata).
    static let mobileSigned =
        "M1ASKREN/TEST         EA272SL ORDNRTUA 0881 007F002K0303 15C>3180 M6007BUA              2901624760758980 UA UA EY975897            *30600    09  UAG    "
        + "^160MEYCIQCVDy6sskR0zx8Ac5aXCG0hjkejH587woSGHWnbBRbp8QIhAJ790UHbTHG9nZLnllP+JjStGWPLWGR7Ag5on2FPCeRG"
}

func parsed(_ text: String, today: CalendarDate = CalendarDate(year: 2026, month: 1, day: 1)) throws -> BoardingPass {
    try BCBP.parse(text, today: today).get()
}

@Suite struct BCBPGuideTests {
    @Test func mandatoryItemsAndSecurityData() throws {
        let pass = try parsed(GuidePasses.mandatoryAndSecurity, today: CalendarDate(year: 2026, month: 11, day: 1))
        #expect(
            pass.fields == [
                DocumentField("format_code", .text("M")), DocumentField("legs_count", .number(1)),
                DocumentField("passenger_name", .text("DESMARAIS/LUC")), DocumentField("passenger_family_name", .text("DESMARAIS")),
                DocumentField("passenger_given_name", .text("LUC")), DocumentField("electronic_ticket", .flag(true)),
                DocumentField(
                    "legs",
                    .records([
                        [
                            DocumentField("pnr", .text("ABC123")), DocumentField("from", .text("YUL")), DocumentField("to", .text("FRA")),
                            DocumentField("carrier", .text("AC")), DocumentField("flight_number", .text("834")),
                            DocumentField("flight_date", .text("2026-11-22")), DocumentField("compartment", .text("J")), DocumentField("seat", .text("1A")),
                            DocumentField("check_in_sequence", .text("25")), DocumentField("passenger_status", .text("1")),
                        ]
                    ])),
                DocumentField("security_data", .text("164" + GuidePasses.security)),
            ])
        #expect(pass.conditional == nil)
        #expect(pass.legs[0].flightDay == 326)
    }

    @Test func twoLegsWithConditionalItemsAndAirlineData() throws {
        let pass = try parsed(GuidePasses.twoLegs, today: CalendarDate(year: 2026, month: 8, day: 1))
        #expect(pass.legs.count == 2)
        #expect(pass.conditional?.version == "6")
        #expect(pass.conditional?.raw == ">6181WW6225BAC 0014123456003")
        #expect(
            pass.conditional?.items == [
                DocumentField("passenger_description", .text("1")), DocumentField("check_in_source", .text("W")),
                DocumentField("boarding_pass_issuance_source", .text("W")), DocumentField("boarding_pass_issue_date", .text("6225")),
                DocumentField("document_type", .text("B")), DocumentField("boarding_pass_issuer", .text("AC")),
                DocumentField("baggage_tags", .text("0014123456003")),
            ])
        let first = pass.legs[0]
        let second = pass.legs[1]
        #expect(first.conditional == "2A0141234567890 1AC AC 1234567890123    20KY")
        #expect(first.airlinePrivate == "LX58Z")
        #expect(first.flightDate == CalendarDate(year: 2026, month: 8, day: 14))
        #expect(
            first.conditionalItems == [
                DocumentField("airline_numeric_code", .text("014")), DocumentField("document_serial_number", .text("1234567890")),
                DocumentField("document_verification", .text("1")), DocumentField("marketing_carrier", .text("AC")),
                DocumentField("frequent_flyer_airline", .text("AC")), DocumentField("frequent_flyer_number", .text("1234567890123")),
                DocumentField("free_baggage_allowance", .text("20K")), DocumentField("fast_track", .text("Y")),
            ])
        #expect(
            second.fields == [
                DocumentField("pnr", .text("DEF456")), DocumentField("from", .text("FRA")), DocumentField("to", .text("GVA")),
                DocumentField("carrier", .text("LH")), DocumentField("flight_number", .text("3664")), DocumentField("flight_date", .text("2026-08-15")),
                DocumentField("compartment", .text("C")), DocumentField("seat", .text("12C")), DocumentField("check_in_sequence", .text("2")),
                DocumentField("passenger_status", .text("1")), DocumentField("conditional", .text("2A0140987654321 1AC AC 1234567890123    2PCN")),
                DocumentField("airline_private", .text("WQ")),
            ])
        #expect(
            pass.fields.map(\.name) == [
                "format_code", "legs_count", "passenger_name", "passenger_family_name", "passenger_given_name", "electronic_ticket", "legs", "conditional",
                "security_data",
            ])
        #expect(pass.fields.last == DocumentField("security_data", .text("164" + GuidePasses.security)))
    }

    @Test func version2HomePrintedPassKeepsTheAirlineDataAsItCame() throws {
        let pass = try parsed(GuidePasses.homePrinted)
        #expect(pass.conditional?.version == "2")
        #expect(pass.legs[0].airlinePrivate == "*30600000K09         ")
        #expect(pass.legs[0].passengerStatus == "3")
        // Version 2 has no fast track item: the repeated section ends before it.
        #expect(pass.legs[0].conditionalItems.last == DocumentField("marketing_carrier", .text("LH")))
        #expect(pass.conditional?.items.contains(DocumentField("boarding_pass_issue_date", .text("6012"))) == true)
        #expect(pass.securityData == nil)
    }

    @Test func version5WithAShortUniqueSection() throws {
        let pass = try parsed(GuidePasses.shortUnique)
        #expect(pass.conditional == BoardingPass.Conditional(version: "5", raw: ">503  W", items: [DocumentField("boarding_pass_issuance_source", .text("W"))]))
        #expect(pass.legs[0].conditional == "0D0742497067621")
        #expect(pass.legs[0].airlinePrivate == nil)
        #expect(pass.legs[0].seat == "8A")
        #expect(pass.legs[0].flightDate == CalendarDate(year: 2026, month: 1, day: 19))
    }

    @Test func version3KioskPass() throws {
        let pass = try parsed(GuidePasses.kiosk)
        #expect(pass.passengerFamilyName == "ASKREN")
        #expect(pass.passengerGivenName == "TEST")
        #expect(pass.legs[0].flightNumber == "881")
        #expect(pass.legs[0].seat == "2K")
        #expect(pass.legs[0].checkInSequence == "303")
        #expect(pass.legs[0].conditionalItems.contains(DocumentField("frequent_flyer_number", .text("EY975897"))))
        #expect(pass.legs[0].airlinePrivate == "*30600    09  UAG    ")
    }

    @Test func mobilePassWithASignature() throws {
        let pass = try parsed(GuidePasses.mobileSigned)
        #expect(pass.securityData == "160MEYCIQCVDy6sskR0zx8Ac5aXCG0hjkejH587woSGHWnbBRbp8QIhAJ790UHbTHG9nZLnllP+JjStGWPLWGR7Ag5on2FPCeRG")
        #expect(pass.legs[0].airlinePrivate == "*30600    09  UAG    ")
        #expect(pass.conditional?.items.contains(DocumentField("boarding_pass_issuance_source", .text("M"))) == true)
    }

    /// Every item blank but the name and the PNR, and four legs with a name that fills its 20 characters
    /// (made up after the Rust crate `iata`'s tests).
    @Test func blankItemsAndAFullName() throws {
        let minimal = try parsed("M1TEST                 8OQ6FU                             00")
        #expect(minimal.fields.map(\.name) == ["format_code", "legs_count", "passenger_name", "passenger_family_name", "electronic_ticket", "legs"])
        #expect(minimal.legs[0].fields == [DocumentField("pnr", .text("8OQ6FU"))])
        let fourLegs = try parsed(
            "M4VERYLONGESTLASTNAMEDEABCDEF JFKSVOSU 1234 207          000ABCDEF SVOLEDSU 5678 210          000"
                + "ABCDEF LEDSVOSU 9876 215          000ABCDEF SVOJFKSU 1357 215          000")
        #expect(fourLegs.passengerName == "VERYLONGESTLASTNAMED")
        #expect(fourLegs.electronicTicket)
        #expect(fourLegs.legs.map(\.flightNumber) == ["1234", "5678", "9876", "1357"])
        #expect(fourLegs.legs.map(\.flightDay) == [207, 210, 215, 215])
    }

    @Test(arguments: GuidePassList.all)
    func guidePassesLookLikePasses(text: String) {
        #expect(BCBP.looksLikePass(text))
    }
}

enum GuidePassList {
    static let all = [
        GuidePasses.mandatoryAndSecurity, GuidePasses.twoLegs, GuidePasses.homePrinted, GuidePasses.shortUnique, GuidePasses.kiosk,
        GuidePasses.mobileSigned,
    ]
}
