// Reading IATA Bar Coded Boarding Passes (Resolution 792, format M) from a code's text, by the resolution's field table.

/// The IATA Bar Coded Boarding Pass (BCBP) format of Resolution 792: fixed-length mandatory items, then per leg
/// conditional items and airline data behind hexadecimal size fields, then optional security data after `^`.
public enum BCBP {
    /// The mandatory unique items (23 characters) and the first leg's mandatory items with its size field (37).
    static let mandatoryUniqueLength = 23
    static let mandatoryLegLength = 37

    /// Whether `text` starts like a BCBP pass: format code `M`, one to four legs, long enough for their mandatory
    /// items, a day-of-year date of flight and a hexadecimal size field. A cheap test before `parse`.
    public static func looksLikePass(_ text: String) -> Bool {
        let head = Array(text.unicodeScalars.prefix(mandatoryUniqueLength + mandatoryLegLength))
        guard head.count == mandatoryUniqueLength + mandatoryLegLength, head[0] == "M", ("1"..."4").contains(head[1]) else { return false }
        let legs = Int(head[1].value) - 48
        guard head[44..<47].allSatisfy({ $0 == " " || ("0"..."9").contains($0) }), head[58...].allSatisfy(\.isHexDigit) else { return false }
        return text.unicodeScalars.count >= mandatoryUniqueLength + legs * mandatoryLegLength
    }

    /// Parses a BCBP pass. `today` is the day it was read, which gives each date of flight its year: the first
    /// date on that day of the year that is today or later, within a year.
    public static func parse(_ text: String, today: CalendarDate) -> Result<BoardingPass, BCBPError> {
        var reader = PassReader(text, today: today)
        return Result { () throws(BCBPError) in try reader.read() }
    }

    /// The conditional unique items of Resolution 792 (first leg only), in order, with their lengths.
    static let uniqueItems: [(name: String, length: Int)] = [
        ("passenger_description", 1), ("check_in_source", 1), ("boarding_pass_issuance_source", 1), ("boarding_pass_issue_date", 4),
        ("document_type", 1), ("boarding_pass_issuer", 3), ("baggage_tags", 13), ("baggage_tags_2", 13), ("baggage_tags_3", 13),
    ]

    /// The conditional repeated items of Resolution 792 (every leg), in order, with their lengths.
    static let repeatedItems: [(name: String, length: Int)] = [
        ("airline_numeric_code", 3), ("document_serial_number", 10), ("selectee", 1), ("document_verification", 1),
        ("marketing_carrier", 3), ("frequent_flyer_airline", 3), ("frequent_flyer_number", 16), ("id_ad_indicator", 1),
        ("free_baggage_allowance", 3), ("fast_track", 1),
    ]
}

/// One pass read front to back; every read is checked against the end of its section.
private struct PassReader {
    let scalars: [Unicode.Scalar]
    let today: CalendarDate
    var offset = 0

    init(_ text: String, today: CalendarDate) {
        scalars = Array(text.unicodeScalars)
        self.today = today
    }

    mutating func read() throws(BCBPError) -> BoardingPass {
        let end = scalars.count
        guard scalars.first == "M" else {
            throw BCBPError(.notBoardingPass, field: "format code", offset: 0, detail: "a pass starts with 'M', this with '\(text(0, min(end, 1)))'")
        }
        let formatCode = try take(1, "format code", end: end)
        guard let legCount = Int(try take(1, "number of legs encoded", end: end)), (1...4).contains(legCount) else {
            throw BCBPError(.notBoardingPass, field: "number of legs encoded", offset: 1, detail: "'\(text(1, 2))' is not 1 to 4")
        }
        let name = trimmed(try take(20, "passenger name", end: end)) ?? ""
        let ticket = try take(1, "electronic ticket indicator", end: end)
        var legs: [BoardingPass.Leg] = []
        var conditional: BoardingPass.Conditional?
        for index in 0..<legCount {
            legs.append(try readLeg(number: index + 1, end: end, conditional: &conditional))
        }
        let security = try readSecurityData(afterLeg: legCount, end: end)
        let slash = name.firstIndex(of: "/")
        return BoardingPass(
            formatCode: formatCode, passengerName: name, passengerFamilyName: slash.map { trimmed(String(name[..<$0])) ?? "" } ?? name,
            passengerGivenName: slash.flatMap { trimmed(String(name[name.index(after: $0)...])) }, electronicTicket: ticket == "E", legs: legs,
            conditional: conditional, securityData: security)
    }

    mutating func readLeg(number: Int, end: Int, conditional: inout BoardingPass.Conditional?) throws(BCBPError) -> BoardingPass.Leg {
        let pnr = trimmed(try take(7, "operating carrier PNR code, leg \(number)", end: end))
        let from = trimmed(try take(3, "from city airport code, leg \(number)", end: end))
        let to = trimmed(try take(3, "to city airport code, leg \(number)", end: end))
        let carrier = trimmed(try take(3, "operating carrier designator, leg \(number)", end: end))
        let flightNumber = unpadded(try take(5, "flight number, leg \(number)", end: end))
        let dateOffset = offset
        let day = try take(3, "date of flight, leg \(number)", end: end)
        let (flightDay, flightDate) = try dateOfFlight(day, leg: number, offset: dateOffset)
        let compartment = trimmed(try take(1, "compartment code, leg \(number)", end: end))
        let seat = unpadded(try take(4, "seat number, leg \(number)", end: end))
        let sequence = unpadded(try take(5, "check-in sequence number, leg \(number)", end: end))
        let status = trimmed(try take(1, "passenger status, leg \(number)", end: end))
        // Each size is read into a constant first: in `sectionEnd(size: try hexSize(...))` the call would see `self`
        // (and its offset) as it was before the size was read.
        let legSize = try hexSize("field size of variable size field, leg \(number)", end: end)
        let legEnd = try sectionEnd(size: legSize, field: "variable size field, leg \(number)", end: end)
        var leg = BoardingPass.Leg(
            pnr: pnr, from: from, to: to, carrier: carrier, flightNumber: flightNumber, flightDay: flightDay, flightDate: flightDate, compartment: compartment,
            seat: seat, checkInSequence: sequence, passengerStatus: status, conditional: nil, conditionalItems: [], airlinePrivate: nil)

        // Only the first leg carries the version marker and the unique items; a first leg without the marker has
        // no conditional items, only airline data.
        if number == 1, offset < legEnd, scalars[offset] == ">" {
            let start = offset
            offset += 1
            let version = offset < legEnd ? try take(1, "version number", end: legEnd) : nil
            var items: [DocumentField] = []
            if offset < legEnd {
                let uniqueSize = try hexSize("field size of following structured message (unique)", end: legEnd)
                let uniqueEnd = try sectionEnd(size: uniqueSize, field: "conditional unique items", end: legEnd)
                items = self.items(BCBP.uniqueItems, end: uniqueEnd)
                offset = uniqueEnd
            }
            conditional = BoardingPass.Conditional(version: version, raw: text(start, offset), items: items)
        }
        if offset < legEnd, number > 1 || conditional != nil {
            let start = offset
            let repeatedSize = try hexSize("field size of following structured message (repeated), leg \(number)", end: legEnd)
            let repeatedEnd = try sectionEnd(size: repeatedSize, field: "conditional repeated items, leg \(number)", end: legEnd)
            leg.conditionalItems = items(BCBP.repeatedItems, end: repeatedEnd)
            offset = repeatedEnd
            leg.conditional = text(start, offset)
        }
        if offset < legEnd {
            leg.airlinePrivate = text(offset, legEnd)
            offset = legEnd
        }
        return leg
    }

    /// `^`, the type of security data, its hexadecimal length, and exactly that many characters to the end.
    mutating func readSecurityData(afterLeg legCount: Int, end: Int) throws(BCBPError) -> String? {
        guard offset < end else { return nil }
        guard scalars[offset] == "^" else {
            throw BCBPError(
                .unexpectedData, field: "leg \(legCount)", offset: offset,
                detail: "expected '^' and security data, found '\(text(offset, min(end, offset + 8)))'")
        }
        offset += 1
        let start = offset
        _ = try take(1, "type of security data", end: end)
        let length = try hexSize("length of security data", end: end)
        let dataEnd = try sectionEnd(size: length, field: "security data", end: end)
        guard dataEnd == end else {
            throw BCBPError(
                .unexpectedData, field: "security data", offset: dataEnd, detail: "its length is \(length), \(end - dataEnd) more characters follow")
        }
        offset = end
        return text(start, end)
    }

    /// The day of the year and its date, or nils when the field is blank or `000`.
    func dateOfFlight(_ field: String, leg: Int, offset: Int) throws(BCBPError) -> (Int?, CalendarDate?) {
        guard let digits = trimmed(field) else { return (nil, nil) }
        guard digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }), let day = Int(digits), day <= 366 else {
            throw BCBPError(.invalid, field: "date of flight, leg \(leg)", offset: offset, detail: "'\(field)' is not a day of the year (001 to 366)")
        }
        guard day > 0 else { return (nil, nil) }
        guard let date = DayOfYear.nextDate(day, onOrAfter: today) else {
            throw BCBPError(
                .invalid, field: "date of flight, leg \(leg)", offset: offset,
                detail: "day \(day) falls in no year between \(today.iso) and a year later")
        }
        return (day, date)
    }

    func items(_ table: [(name: String, length: Int)], end: Int) -> [DocumentField] {
        // A section shorter than the table is an older version's (or a pass that leaves the last items out);
        // longer, a newer version's items this table does not know, which stay in the raw text.
        var fields: [DocumentField] = []
        var position = offset
        for item in table where position < end {
            let next = min(end, position + item.length)
            if let value = trimmed(text(position, next)) { fields.append(DocumentField(item.name, .text(value))) }
            position = next
        }
        return fields
    }

    mutating func take(_ count: Int, _ field: String, end: Int) throws(BCBPError) -> String {
        guard end - offset >= count else {
            throw BCBPError(.truncated, field: field, offset: offset, detail: "it has \(count) characters, \(end - offset) are left")
        }
        defer { offset += count }
        return text(offset, offset + count)
    }

    mutating func hexSize(_ field: String, end: Int) throws(BCBPError) -> Int {
        let start = offset
        let digits = try take(2, field, end: end)
        guard digits.unicodeScalars.allSatisfy(\.isHexDigit), let size = Int(digits, radix: 16) else {
            throw BCBPError(.invalid, field: field, offset: start, detail: "'\(digits)' is not two hexadecimal digits")
        }
        return size
    }

    /// Where a section of `size` characters starting here ends, checked against the enclosing section's end.
    func sectionEnd(size: Int, field: String, end: Int) throws(BCBPError) -> Int {
        guard size <= end - offset else {
            throw BCBPError(.sizeExceedsData, field: field, offset: offset - 2, detail: "its size is \(size), \(end - offset) characters are left")
        }
        return offset + size
    }

    func text(_ start: Int, _ end: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<end])
        return String(view)
    }
}

extension Unicode.Scalar {
    fileprivate var isHexDigit: Bool { ("0"..."9").contains(self) || ("A"..."F").contains(self) || ("a"..."f").contains(self) }
}

/// The text without leading and trailing spaces, or nil when nothing is left.
private func trimmed(_ text: String) -> String? {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { $0 != " " }), let last = scalars.lastIndex(where: { $0 != " " }) else { return nil }
    return String(scalars[first...last])
}

/// Trimmed, without the zeros that pad a number (`0834` is `834`, `012A` is `12A`, `0000` is `0`); text such as `INF` stays.
private func unpadded(_ text: String) -> String? {
    guard var value = trimmed(text) else { return nil }
    while value.count > 1, value.first == "0", let next = value.dropFirst().first, next.isASCII, next.isNumber {
        value.removeFirst()
    }
    return value
}
