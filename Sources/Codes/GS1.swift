/// One GS1 element string: an application identifier and its data.
public struct GS1Element: Sendable, Hashable, Codable {
    /// The application identifier, e.g. "01".
    public var ai: String
    /// GS1's short title for the AI, e.g. "GTIN".
    public var title: String
    /// The data as encoded.
    public var value: String
    /// For date AIs (YYMMDD), the date as YYYY-MM-DD; a day of 00 stands for the month's last day and is kept as 00.
    public var date: String?

    public init(ai: String, title: String, value: String, date: String? = nil) {
        self.ai = ai
        self.title = title
        self.value = value
        self.date = date
    }
}

/// Why GS1 element strings could not be parsed.
public struct GS1Error: Error, Hashable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "GS1 data at offset \(offset): \(reason)" }
}

/// Parses GS1 element strings (the data after FNC1, with GS as the separator).
public enum GS1 {
    /// The group separator that stands for FNC1 between element strings.
    public static let groupSeparator: Character = "\u{1D}"

    /// Splits `data` into element strings, checking lengths, check digits and dates.
    ///
    /// `currentYear` sets the century of two-digit years, by GS1's sliding window (-49...+50 years).
    public static func parse(_ data: String, currentYear: Int) throws(GS1Error) -> [GS1Element] {
        let chars = Array(data)
        var elements: [GS1Element] = []
        var index = 0
        while index < chars.count {
            if chars[index] == groupSeparator {
                index += 1
                continue
            }
            guard let (ai, spec) = lookUp(chars, at: index) else {
                throw GS1Error(offset: index, reason: "unknown application identifier '\(String(chars[index..<min(index + 4, chars.count)]))'")
            }
            let start = index + ai.count
            var end: Int
            if let fixed = spec.fixedLength {
                end = start + fixed
                guard end <= chars.count, !chars[start..<end].contains(groupSeparator) else {
                    throw GS1Error(offset: start, reason: "AI (\(ai)) needs \(fixed) characters")
                }
            } else {
                end = chars[start...].firstIndex(of: groupSeparator) ?? chars.count
                guard end > start else { throw GS1Error(offset: start, reason: "AI (\(ai)) has no data") }
                guard end - start <= spec.maxLength else {
                    throw GS1Error(offset: start, reason: "AI (\(ai)) allows at most \(spec.maxLength) characters, got \(end - start)")
                }
            }
            let value = String(chars[start..<end])
            elements.append(try element(ai: ai, spec: spec, value: value, offset: start, currentYear: currentYear))
            index = end
        }
        guard !elements.isEmpty else { throw GS1Error(offset: 0, reason: "no element strings") }
        return elements
    }

    /// Whether the last digit of `digits` is the right GS1 mod-10 check digit.
    public static func hasValidCheckDigit(_ digits: String) -> Bool {
        let values = digits.compactMap(\.wholeNumberValue)
        guard values.count == digits.count, values.count >= 2 else { return false }
        var sum = 0
        for (position, digit) in values.dropLast().reversed().enumerated() {
            sum += digit * (position % 2 == 0 ? 3 : 1)
        }
        return (10 - sum % 10) % 10 == values.last!
    }

    /// One element string from its AI and value (a Digital Link's path segment or query
    /// parameter), checked as in `parse`.
    static func element(ai: String, value: String, currentYear: Int) throws(GS1Error) -> GS1Element {
        guard let spec = table[ai] else { throw GS1Error(offset: 0, reason: "unknown application identifier '\(ai)'") }
        guard !value.isEmpty else { throw GS1Error(offset: 0, reason: "AI (\(ai)) has no data") }
        if let fixed = spec.fixedLength, value.count != fixed {
            throw GS1Error(offset: 0, reason: "AI (\(ai)) needs \(fixed) characters, got \(value.count)")
        }
        guard value.count <= spec.maxLength, !value.contains(groupSeparator) else {
            throw GS1Error(offset: 0, reason: "AI (\(ai)) allows at most \(spec.maxLength) characters, got \(value.count)")
        }
        return try element(ai: ai, spec: spec, value: value, offset: 0, currentYear: currentYear)
    }

    private static func element(ai: String, spec: AISpec, value: String, offset: Int, currentYear: Int) throws(GS1Error) -> GS1Element {
        if spec.kind != .text, !value.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw GS1Error(offset: offset, reason: "AI (\(ai)) takes digits only, got '\(value)'")
        }
        if spec.kind == .checked, !hasValidCheckDigit(value) {
            throw GS1Error(offset: offset, reason: "AI (\(ai)) check digit is wrong in '\(value)'")
        }
        var date: String?
        if spec.kind == .date {
            let digits = value.compactMap(\.wholeNumberValue)
            let (yy, month, day) = (digits[0] * 10 + digits[1], digits[2] * 10 + digits[3], digits[4] * 10 + digits[5])
            let year = fullYear(yy, currentYear: currentYear)
            // Day 00 stands for the month's last day.
            guard (1...12).contains(month), day == 0 || day <= daysIn(month: month, year: year) else {
                throw GS1Error(offset: offset, reason: "AI (\(ai)) is not a YYMMDD date: '\(value)'")
            }
            date = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
        }
        return GS1Element(ai: ai, title: spec.title, value: value, date: date)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// GS1 General Specifications 7.12: two-digit years within 49 years back and 50 ahead.
    static func fullYear(_ yy: Int, currentYear: Int) -> Int {
        let century = currentYear - currentYear % 100
        let difference = yy - currentYear % 100
        if difference >= 51 { return century - 100 + yy }
        if difference <= -50 { return century + 100 + yy }
        return century + yy
    }

    private static func lookUp(_ chars: [Character], at index: Int) -> (String, AISpec)? {
        for length in 2...4 where index + length <= chars.count {
            let candidate = String(chars[index..<index + length])
            if let spec = table[candidate] { return (candidate, spec) }
        }
        return nil
    }
}
