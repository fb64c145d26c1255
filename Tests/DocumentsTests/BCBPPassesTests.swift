import Documents
import Testing

/// Made-up passes beyond the guide's: more legs, versions 1, 7 and 8, airline data without conditional items.
enum MadeUpPasses {
    /// Three legs, version 7: full repeated items on leg 1, a short section and airline data on leg 2, an empty one on leg 3.
    static let threeLegs =
        "M3NOWAK/ZOFIA         EQX7P2K KRKWAWLO 3902 045Y014C0007 148>7180KK6044BLO 00801234560012A08012345678900 LO LO 123456789        1PCN"
        + "QX7P2K WAWLHRLO 0281 045Y022F0031 1191208012345678910 LO PRIV2" + "ZZ9Q1B LHRDUBEI 0155A046J002A0002 00200"
    /// Four legs across a year end, version 8 with three baggage tag items, legs 2 to 4 without a variable size field's data.
    static let fourLegs =
        "M4LINDQVIST/ERIK DR   EK3LM9P ARNCPHSK 0403 360C003D0012 138>8322MM6360BSK 01170001110020117000222001011700033300100"
        + "K3LM9P CPHKEFFI 0205 361C002A0003 100" + "K3LM9P KEFJFKFI 0615 361C001K0004 100" + "K3LM9P JFKBOSB6 1234 001Y017B0100 100^20ASIGNATURE0"
    /// Version 1 with a one-item unique section, an infant's seat and a blank check-in sequence.
    static let version1 = "M1OKAFOR/CHIDI        EB7Q2X9 LOSABVW3 0106 200YINF      417>10100D0533456789012XYZ"
    /// No version marker: the first leg's variable size field holds airline data only. No electronic ticket, no given name.
    static let airlineDataOnly = "M1PAPADOPOULOS         AB12CD ATHSKGA3 0110 100Y030C0040 110AIRLINE DATA ^ >"
}

@Suite struct BCBPPassesTests {
    @Test func threeLegs() throws {
        let pass = try parsed(MadeUpPasses.threeLegs, today: CalendarDate(year: 2027, month: 2, day: 1))
        #expect(pass.legs.map(\.from) == ["KRK", "WAW", "LHR"])
        #expect(pass.legs.map(\.flightNumber) == ["3902", "281", "155A"])
        #expect(
            pass.legs.map(\.flightDate) == [
                CalendarDate(year: 2027, month: 2, day: 14), CalendarDate(year: 2027, month: 2, day: 14), CalendarDate(year: 2027, month: 2, day: 15),
            ])
        #expect(pass.conditional?.version == "7")
        #expect(pass.legs.map(\.conditional) == ["2A08012345678900 LO LO 123456789        1PCN", "1208012345678910 LO ", "00"])
        #expect(pass.legs.map(\.airlinePrivate) == [nil, "PRIV2", nil])
        #expect(pass.legs[1].conditionalItems.last == DocumentField("marketing_carrier", .text("LO")))
        #expect(pass.legs[2].conditionalItems.isEmpty)
        #expect(pass.securityData == nil)
    }

    @Test func fourLegsAcrossTheYearEnd() throws {
        let pass = try parsed(MadeUpPasses.fourLegs, today: CalendarDate(year: 2026, month: 12, day: 20))
        #expect(pass.passengerGivenName == "ERIK DR")
        #expect(
            pass.legs.map(\.flightDate) == [
                CalendarDate(year: 2026, month: 12, day: 26), CalendarDate(year: 2026, month: 12, day: 27), CalendarDate(year: 2026, month: 12, day: 27),
                CalendarDate(year: 2027, month: 1, day: 1),
            ])
        #expect(pass.conditional?.version == "8")
        #expect(pass.conditional?.items.suffix(3).map(\.name) == ["baggage_tags", "baggage_tags_2", "baggage_tags_3"])
        #expect(pass.legs[0].conditional == "00")
        #expect(pass.legs.dropFirst().allSatisfy { $0.conditional == nil && $0.airlinePrivate == nil })
        #expect(pass.securityData == "20ASIGNATURE0")
        guard case .records(let legs) = pass.fields.first(where: { $0.name == "legs" })?.value else {
            Issue.record("no legs")
            return
        }
        #expect(legs.count == 4)
        #expect(legs[3].first(where: { $0.name == "flight_date" }) == DocumentField("flight_date", .text("2027-01-01")))
    }

    @Test func version1WithAnInfantsSeat() throws {
        let pass = try parsed(MadeUpPasses.version1)
        #expect(pass.conditional == BoardingPass.Conditional(version: "1", raw: ">1010", items: [DocumentField("passenger_description", .text("0"))]))
        #expect(pass.legs[0].seat == "INF")
        #expect(pass.legs[0].checkInSequence == nil)
        #expect(pass.legs[0].passengerStatus == "4")
        #expect(pass.legs[0].conditional == "0D0533456789012")
        #expect(pass.legs[0].airlinePrivate == "XYZ")
        #expect(!pass.legs[0].fields.contains { $0.name == "check_in_sequence" })
    }

    @Test func airlineDataWithoutConditionalItems() throws {
        let pass = try parsed(MadeUpPasses.airlineDataOnly)
        #expect(pass.conditional == nil)
        #expect(pass.legs[0].conditional == nil)
        #expect(pass.legs[0].airlinePrivate == "AIRLINE DATA ^ >")
        #expect(pass.electronicTicket == false)
        #expect(pass.passengerFamilyName == "PAPADOPOULOS")
        #expect(pass.passengerGivenName == nil)
        #expect(pass.fields.map(\.name) == ["format_code", "legs_count", "passenger_name", "passenger_family_name", "electronic_ticket", "legs"])
    }

    @Test func lowerCaseHexSizesAreRead() throws {
        // Size 0x2A written "2a": the digits are still hexadecimal.
        let text = "M1DOE/JANE            EABC123 YULFRAAC 0834 326J001A0025 12a>5180  6225BAC              00PRIVATEDATA1"
        #expect(try parsed(text).legs[0].airlinePrivate == "PRIVATEDATA1")
    }

    @Test(arguments: [MadeUpPasses.threeLegs, MadeUpPasses.fourLegs, MadeUpPasses.version1, MadeUpPasses.airlineDataOnly])
    func madeUpPassesLookLikePasses(text: String) {
        #expect(BCBP.looksLikePass(text))
    }
}
