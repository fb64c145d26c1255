import Documents
import ScannerTestSupport
import Testing

/// Issue #35's cross-check: a second parser, written here from Resolution 792's field table as (name, length) rows
/// read by offsets, against the module's parser on 300 generated passes (made-up data, a seeded generator).
@Suite struct BCBPCrossCheckTests {
    @Test func tableParserAgreesWithTheModuleOn300Passes() throws {
        var random = SeededGenerator(seed: 792)
        var parsedCount = 0
        for index in 0..<300 {
            let today = CalendarDate(
                year: Int.random(in: 2024...2031, using: &random), month: Int.random(in: 1...12, using: &random), day: Int.random(in: 1...28, using: &random))
            let text = PassGenerator.pass(using: &random)
            let expected = TableParser.fields(text, today: today)
            switch BCBP.parse(text, today: today) {
            case .success(let pass):
                parsedCount += 1
                #expect(pass.fields == expected?.fields, "pass \(index): \(text)")
                #expect(pass.conditional?.items ?? [] == expected?.uniqueItems, "pass \(index): \(text)")
                #expect(pass.legs.map(\.conditionalItems) == expected?.repeatedItems, "pass \(index): \(text)")
            case .failure(let error):
                #expect(expected == nil, "pass \(index): \(error): \(text)")
            }
            #expect(BCBP.looksLikePass(text), "pass \(index): \(text)")
        }
        // Only day 366 out of a leap year's reach makes a generated pass unreadable; nearly all must parse.
        #expect(parsedCount > 260)
    }
}

/// Resolution 792's field table, and a parser that reads a pass by it and by nothing else.
enum TableParser {
    // Item numbers and lengths from Resolution 792's table (the Implementation Guide's section 2.2).
    static let mandatoryUnique: [(String, Int)] = [("format_code", 1), ("legs_count", 1), ("passenger_name", 20), ("electronic_ticket", 1)]
    static let mandatoryRepeated: [(String, Int)] = [
        ("pnr", 7), ("from", 3), ("to", 3), ("carrier", 3), ("flight_number", 5), ("flight_date", 3), ("compartment", 1), ("seat", 4),
        ("check_in_sequence", 5), ("passenger_status", 1), ("variable_size", 2),
    ]
    static let conditionalHeader: [(String, Int)] = [("version_mark", 1), ("version", 1), ("unique_size", 2)]
    static let uniqueItems: [(String, Int)] = [
        ("passenger_description", 1), ("check_in_source", 1), ("boarding_pass_issuance_source", 1), ("boarding_pass_issue_date", 4),
        ("document_type", 1), ("boarding_pass_issuer", 3), ("baggage_tags", 13), ("baggage_tags_2", 13), ("baggage_tags_3", 13),
    ]
    static let repeatedItems: [(String, Int)] = [
        ("airline_numeric_code", 3), ("document_serial_number", 10), ("selectee", 1), ("document_verification", 1), ("marketing_carrier", 3),
        ("frequent_flyer_airline", 3), ("frequent_flyer_number", 16), ("id_ad_indicator", 1), ("free_baggage_allowance", 3), ("fast_track", 1),
    ]

    struct Expected: Equatable {
        var fields: [DocumentField]
        var uniqueItems: [DocumentField]
        var repeatedItems: [[DocumentField]]
    }

    /// The fields the module should give, or nil when the pass is not readable.
    static func fields(_ text: String, today: CalendarDate) -> Expected? {
        let chars = Array(text.unicodeScalars).map(Character.init)
        func slice(_ from: Int, _ count: Int) -> String? { from + count <= chars.count ? String(chars[from..<from + count]) : nil }
        func rows(_ table: [(String, Int)], at start: Int, limit: Int) -> (values: [(String, String)], end: Int) {
            var values: [(String, String)] = []
            var position = start
            for (name, length) in table where position < limit {
                let count = min(length, limit - position)
                values.append((name, String(chars[position..<position + count])))
                position += count
            }
            return (values, position)
        }
        let head = rows(mandatoryUnique, at: 0, limit: chars.count)
        guard head.end == 23, head.values[0].1 == "M", let legCount = Int(head.values[1].1), (1...4).contains(legCount) else { return nil }
        var position = 23
        var legs: [[DocumentField]] = []
        var unique: [DocumentField] = []
        var uniqueRaw: String?
        var repeated: [[DocumentField]] = []
        for leg in 0..<legCount {
            guard position + 37 <= chars.count else { return nil }
            let mandatory = Dictionary(uniqueKeysWithValues: rows(mandatoryRepeated, at: position, limit: position + 37).values)
            position += 37
            guard let size = hex(mandatory["variable_size"]!), position + size <= chars.count else { return nil }
            let sectionEnd = position + size
            var fields: [DocumentField] = []
            for (name, _) in mandatoryRepeated.dropLast() {
                let raw = mandatory[name]!
                let value: String?
                switch name {
                case "flight_number", "seat", "check_in_sequence": value = withoutPaddingZeros(raw)
                case "flight_date":
                    let day = raw.trimmingSpaces
                    if day.isEmpty || Int(day) == 0 {
                        value = nil
                    } else {
                        guard day.allSatisfy(\.isWholeNumber), let number = Int(day), let date = dateOfDay(number, from: today) else { return nil }
                        value = date
                    }
                default: value = raw.trimmingSpaces.isEmpty ? nil : raw.trimmingSpaces
                }
                if let value { fields.append(DocumentField(name, .text(value))) }
            }
            var legRepeated: [DocumentField] = []
            var conditional: String?
            if leg == 0, position < sectionEnd, chars[position] == ">" {
                let header = rows(conditionalHeader, at: position, limit: sectionEnd)
                var end = header.end
                if header.values.count == 3 {
                    guard header.values[2].1.count == 2, let uniqueSize = hex(header.values[2].1), end + uniqueSize <= sectionEnd else { return nil }
                    unique = items(rows(uniqueItems, at: end, limit: end + uniqueSize).values)
                    end += uniqueSize
                }
                uniqueRaw = String(chars[position..<end])
                position = end
            }
            if position < sectionEnd, leg > 0 || uniqueRaw != nil {
                guard let repeatedSize = slice(position, 2).flatMap(hex), position + 2 + repeatedSize <= sectionEnd else { return nil }
                legRepeated = items(rows(repeatedItems, at: position + 2, limit: position + 2 + repeatedSize).values)
                conditional = String(chars[position..<position + 2 + repeatedSize])
                position += 2 + repeatedSize
            }
            if let conditional { fields.append(DocumentField("conditional", .text(conditional))) }
            if position < sectionEnd { fields.append(DocumentField("airline_private", .text(String(chars[position..<sectionEnd])))) }
            position = sectionEnd
            legs.append(fields)
            repeated.append(legRepeated)
        }
        var security: String?
        if position < chars.count {
            guard chars[position] == "^", let length = slice(position + 2, 2).flatMap(hex), position + 4 + length == chars.count else { return nil }
            security = String(chars[(position + 1)...])
        }
        let name = head.values[2].1.trimmingSpaces
        let parts = name.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        var fields = [DocumentField("format_code", .text("M")), DocumentField("legs_count", .number(legCount))]
        if !name.isEmpty { fields.append(DocumentField("passenger_name", .text(name))) }
        if !parts[0].isEmpty { fields.append(DocumentField("passenger_family_name", .text(parts[0]))) }
        if parts.count == 2, !parts[1].isEmpty { fields.append(DocumentField("passenger_given_name", .text(parts[1]))) }
        fields.append(DocumentField("electronic_ticket", .flag(head.values[3].1 == "E")))
        fields.append(DocumentField("legs", .records(legs)))
        if let uniqueRaw { fields.append(DocumentField("conditional", .text(uniqueRaw))) }
        if let security { fields.append(DocumentField("security_data", .text(security))) }
        return Expected(fields: fields, uniqueItems: unique, repeatedItems: repeated)
    }

    static func items(_ values: [(String, String)]) -> [DocumentField] {
        values.compactMap { name, raw in raw.trimmingSpaces.isEmpty ? nil : DocumentField(name, .text(raw.trimmingSpaces)) }
    }

    static func hex(_ text: String) -> Int? {
        text.count == 2 && text.allSatisfy(\.isHexDigit) ? Int(text, radix: 16) : nil
    }

    static func withoutPaddingZeros(_ raw: String) -> String? {
        var text = Substring(raw.trimmingSpaces)
        while text.count > 1, text.first == "0", text.dropFirst().first?.isWholeNumber == true { text = text.dropFirst() }
        return text.isEmpty ? nil : String(text)
    }

    /// Walks forward a day at a time from `today` for a year, and takes the first day with that number.
    static func dateOfDay(_ number: Int, from today: CalendarDate) -> String? {
        var (year, month, day) = (today.year, today.month, today.day)
        for _ in 0...366 {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let monthLengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            if monthLengths[..<(month - 1)].reduce(0, +) + day == number {
                return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
            }
            if (year, month, day) == (today.year + 1, today.month, today.day) { return nil }
            day += 1
            if day > monthLengths[month - 1] { (month, day) = (month + 1, 1) }
            if month > 12 { (year, month) = (year + 1, 1) }
        }
        return nil
    }
}

/// Made-up passes in every shape the resolution allows: one to four legs, blank items, versions 1 to 8 with
/// short and full conditional sections, airline data (with `^` and `>` inside it), security data.
enum PassGenerator {
    static func pass(using random: inout SeededGenerator) -> String {
        let legCount = Int.random(in: 1...4, using: &random)
        let family = word(3...12, using: &random)
        let name: String
        switch Int.random(in: 0..<6, using: &random) {
        case 0: name = family
        case 1: name = family + "/"
        case 2: name = String((family + "/" + word(8...14, using: &random) + "MR").prefix(20))
        default: name = family + "/" + word(2...7, using: &random)
        }
        var text = "M\(legCount)" + padded(name, 20) + (Bool.random(using: &random) ? "E" : " ")
        for leg in 0..<legCount {
            text += padded(alphanumeric(5...7, using: &random), 7) + word(3...3, using: &random) + word(3...3, using: &random)
            text += padded(alphanumeric(2...3, using: &random), 3)
            text += pick(["0834 ", "0072A", "1234 ", "    ", "0001 ", "9999Z"], using: &random).padding(5)
            // Day 366 only now and then: out of a leap year's reach it makes the pass unreadable.
            let days = [zeroPadded(Int.random(in: 1...365, using: &random), 3), "000", "   ", "001", "365", "060"]
            text += Int.random(in: 0..<40, using: &random) == 0 ? "366" : pick(days, using: &random)
            text += pick(["Y", "J", "F", " "], using: &random)
            text += pick(["012A", "001A", "INF ", "    ", "123K", "GATE"], using: &random)
            text += pick(["0025 ", "0001A", "     ", "1234 ", "00000"], using: &random)
            text += pick(["0", "1", "3", " "], using: &random)
            var section = ""
            if leg == 0, Bool.random(using: &random) {
                let unique = String(itemText(using: &random).prefix(pick([0, 3, 7, 8, 11, 24, 37, 50], using: &random)))
                section += ">" + String(Int.random(in: 1...8, using: &random)) + hexSize(unique.count, lower: Bool.random(using: &random)) + unique
            }
            let hasAirlineData = Int.random(in: 0..<3, using: &random) == 0
            // After the version marker (and on later legs) airline data needs the repeated size field before it, if only "00".
            if (leg > 0 || !section.isEmpty) && (hasAirlineData || Int.random(in: 0..<4, using: &random) > 0) {
                let repeated = String(itemText(using: &random).prefix(pick([0, 13, 18, 28, 41, 42], using: &random)))
                section += hexSize(repeated.count, lower: false) + repeated
            }
            if hasAirlineData {
                section += pick(["LX58Z", "*30600000K09         ", "^>WQ", " X "], using: &random)
            }
            text += hexSize(section.count, lower: Bool.random(using: &random)) + section
        }
        if Bool.random(using: &random) {
            let data = alphanumeric(0...100, using: &random)
            text += "^" + pick(["1", "2", " "], using: &random) + hexSize(data.count, lower: false) + data
        }
        return text
    }

    static func itemText(using random: inout SeededGenerator) -> String {
        String((0..<50).map { _ in pick(Array("ABCXYZ0123456789    "), using: &random) })
    }

    static func word(_ length: ClosedRange<Int>, using random: inout SeededGenerator) -> String {
        String((0..<Int.random(in: length, using: &random)).map { _ in pick(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), using: &random) })
    }

    static func alphanumeric(_ length: ClosedRange<Int>, using random: inout SeededGenerator) -> String {
        String((0..<Int.random(in: length, using: &random)).map { _ in pick(Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"), using: &random) })
    }

    static func pick<T>(_ choices: [T], using random: inout SeededGenerator) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }

    static func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }

    static func zeroPadded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    static func hexSize(_ size: Int, lower: Bool) -> String {
        let digits = String(size, radix: 16, uppercase: !lower)
        return digits.count == 1 ? "0" + digits : digits
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }

    func padding(_ width: Int) -> String { PassGenerator.padded(self, width) }
}
