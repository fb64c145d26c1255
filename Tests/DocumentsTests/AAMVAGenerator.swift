import Documents
import ScannerTestSupport

/// A made-up AAMVA document, with what a correct reading gives: the fields, as the generator meant them.
struct AAMVASample {
    var text: String
    var version: Int
    /// The DL or ID subfile's elements, in order.
    var elements: [(id: String, value: String)]
    /// Whether another subfile follows the DL or ID one (the oracle runs them together).
    var followedBySubfile: Bool
    /// Whether the dates are written CCYYMMDD (version 1, Canada) rather than MMDDCCYY.
    var yearFirstDates: Bool
    /// Field name to value, as `IDDocument.fields` should give it (flags as "true" and "false").
    var truth: [String: String]

    /// The element a field comes from in this sample's version.
    func element(of field: String) -> String {
        switch field {
        case "family_name": return version <= 1 ? "DAA" : "DCS"
        case "given_name": return version <= 1 ? "DAA" : version <= 3 ? "DCT" : "DAC"
        case "middle_name": return version <= 1 ? "DAA" : elements.contains { $0.id == "DAD" } ? "DAD" : "DCT"
        case "suffix": return version <= 1 ? "DAA" : "DCU"
        default: return Self.elementOfField[field] ?? field
        }
    }

    func value(of id: String) -> String? { elements.first { $0.id == id }?.value }

    static let elementOfField = [
        "birth_date": "DBB", "issue_date": "DBD", "expiry_date": "DBA", "sex": "DBC", "customer_id": "DAQ",
        "street": "DAG", "street_2": "DAH", "city": "DAI", "jurisdiction_code": "DAJ", "postal_code": "DAK",
        "country": "DCG", "family_name_truncated": "DDE", "given_name_truncated": "DDF",
        "middle_name_truncated": "DDG",
    ]
}

/// Made-up documents of every version from a seeded generator: no real person's data. The street
/// names DAKOTA and ADDAIR hold element IDs (DAK, DAI) on purpose.
struct AAMVAGenerator {
    var random: SeededGenerator

    static let families = ["SAMPLE", "EXAMPLE", "TESTER", "MODEL", "PLACEHOLDER", "FICTION", "O'NOBODY", "VAN TEST"]
    static let givens = ["AVERY", "JORDAN", "CASEY", "RILEY", "QUINN", "MORGAN", "TAYLOR", "JAMIE", "ALEX", "SAM"]
    static let suffixes = ["", "", "", "", "JR", "SR", "II", "III", "IV"]
    static let streets = ["MAIN", "OAK", "EXAMPLE", "DAKOTA", "ADDAIR", "CEDAR", "LAKE"]
    static let cities = ["SPRINGFIELD", "RIVERTON", "FAIRVIEW", "MAPLETON", "LAKESIDE"]
    static let issuers: [(iin: String, code: String, country: String)] = [
        ("636000", "VA", "USA"), ("636014", "CA", "USA"), ("636015", "TX", "USA"), ("636001", "NY", "USA"),
        ("636026", "AZ", "USA"), ("636012", "ON", "CAN"), ("636028", "BC", "CAN"), ("604428", "QC", "CAN"),
        ("604432", "AB", "CAN"),
    ]

    mutating func number(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(random.next() % UInt64(range.count))
    }

    mutating func pick<T>(_ items: [T]) -> T { items[number(0...items.count - 1)] }

    mutating func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(number(0...9))) }) }

    mutating func date(_ years: ClosedRange<Int>) -> (year: Int, month: Int, day: Int) {
        let year = number(years)
        let month = number(1...12)
        return (year, month, number(1...Self.daysIn(month: month, year: year)))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// YYYY-MM-DD.
    static func iso(_ year: Int, _ month: Int, _ day: Int) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    mutating func sample() -> AAMVASample {
        let version = number(1...AAMVA.currentVersion)
        let issuer = pick(Self.issuers)
        var elements: [(id: String, value: String)] = []
        var truth: [String: String] = [:]
        // Canada's documents say so in DCG, or leave it to the IIN (one in six).
        let dcg: String? = version >= 2 && number(0...5) > 0 ? issuer.country : nil
        let yearFirst = version <= 1 || issuer.country == "CAN"

        let family = pick(Self.families)
        let given = pick(Self.givens)
        let middle = number(0...2) == 0 ? "" : pick(Self.givens)
        let suffix = pick(Self.suffixes)
        truth["family_name"] = family
        truth["given_name"] = given
        truth["middle_name"] = middle.isEmpty ? nil : middle
        truth["suffix"] = suffix.isEmpty ? nil : suffix
        elements.append(("DAQ", pick(["D", "X", "T", "Z"]) + digits(8)))
        truth["customer_id"] = elements[0].value
        if version <= 1 {
            var parts = [family, given, middle, suffix]
            while parts.last == "" { parts.removeLast() }
            elements.append(("DAA", parts.joined(separator: ",")))
        } else if version <= 3 {
            elements.append(("DCS", family))
            // The given names together, commas between them, or the middle one in DAD.
            if !middle.isEmpty && number(0...1) == 0 {
                elements.append(("DCT", given + "," + middle))
            } else {
                elements.append(("DCT", given))
                if !middle.isEmpty { elements.append(("DAD", middle)) }
            }
        } else {
            elements += [("DCS", family), ("DAC", given)]
            if !middle.isEmpty { elements.append(("DAD", middle)) }
            for (id, field) in [("DDE", "family_name_truncated"), ("DDF", "given_name_truncated"), ("DDG", "middle_name_truncated")] {
                let code = pick(["T", "N", "N", "U"])
                elements.append((id, code))
                truth[field] = ["T": "true", "N": "false"][code]
            }
        }
        if version >= 2 && !suffix.isEmpty { elements.append(("DCU", suffix)) }

        for (id, field, years) in [("DBD", "issue_date", 2015...2026), ("DBB", "birth_date", 1940...2012), ("DBA", "expiry_date", 2020...2034)] {
            let day = date(years)
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            elements.append((id, yearFirst ? "\(day.year)\(two(day.month))\(two(day.day))" : "\(two(day.month))\(two(day.day))\(day.year)"))
            truth[field] = Self.iso(day.year, day.month, day.day)
        }
        let sex = version <= 1 ? pick(["M", "F", "1", "2"]) : pick(["1", "2", "9"])
        elements.append(("DBC", sex))
        truth["sex"] = ["M": "M", "1": "M", "F": "F", "2": "F", "9": "X"][sex]

        let street = "\(number(1...9999)) \(pick(Self.streets)) \(pick(["ST", "AVE", "RD", "WAY"]))"
        elements.append(("DAG", street))
        truth["street"] = street
        let street2 = pick(["", "", "APT 4", "UNIT 12B", "FL 3"])
        if !street2.isEmpty {
            elements.append(("DAH", street2))
            truth["street_2"] = street2
        }
        let city = pick(Self.cities)
        elements += [("DAI", city), ("DAJ", issuer.code)]
        truth["city"] = city
        truth["jurisdiction_code"] = issuer.code
        if issuer.country == "CAN" {
            let letters = Array("ABCEGHJKLMNPRSTVXY")
            let code = "\(pick(letters))\(number(0...9))\(pick(letters)) \(number(0...9))\(pick(letters))\(number(0...9))"
            elements.append(("DAK", number(0...1) == 0 ? code : code.filter { $0 != " " }))
            truth["postal_code"] = code
        } else {
            let zip = digits(5)
            let plus4 = number(0...1) == 0 ? "0000" : String(number(1...9999) + 10000).dropFirst()
            elements.append(("DAK", zip + plus4 + pick(["", "", "  "])))
            truth["postal_code"] = plus4 == "0000" ? zip : zip + "-" + plus4
        }
        if let dcg {
            elements.append(("DCG", dcg))
            truth["country"] = dcg
        }
        // One document in four has its elements in another order than the standard's example.
        if number(0...3) == 0 { elements.shuffle(using: &random) }

        let type = number(0...4) == 0 ? "ID" : "DL"
        var subfiles: [(type: String, elements: [(String, String)])] = [(type, elements.map { ($0.id, $0.value) })]
        let jurisdictionSubfile = number(0...1) == 0
        if jurisdictionSubfile {
            let z = "Z" + issuer.code.prefix(1)
            subfiles.append((z, [(z + "A", digits(2)), (z + "B", pick(Self.cities))]))
        }
        var builder = AAMVABuilder(version: version, iin: issuer.iin, subfiles)
        builder.jurisdictionVersion = number(0...3)
        return AAMVASample(
            text: builder.text(), version: version, elements: elements, followedBySubfile: jurisdictionSubfile,
            yearFirstDates: yearFirst, truth: truth)
    }
}
