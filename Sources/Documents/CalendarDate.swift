// The calendar date both document parsers take for "today" and give their dates as. The module has
// no clock: the scanner passes its local date, so ages, expiry and flight dates follow the lane's
// day, and tests fix it.

/// A day in the Gregorian calendar, without a time or a time zone.
public struct CalendarDate: Equatable, Comparable, Sendable {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date, or nil if there is no such day (month 13, February 30, year 0 or past 9999).
    public init?(checkedYear year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, of: year) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date of ISO 8601 text, YYYY-MM-DD; nil for anything else or no such day.
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        self.init(checkedYear: year, month: month, day: day)
    }

    /// ISO 8601, YYYY-MM-DD.
    public var iso: String { formatted("YYYY-MM-DD") }

    /// `pattern` with `YYYY`, `YY`, `MM` and `DD` standing for the date's parts, zero-padded; the
    /// rest as written (a template's `date_format`).
    public func formatted(_ pattern: String) -> String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = pattern
        text = text.replacing("YYYY", with: padded(year, 4))
        text = text.replacing("YY", with: padded(year % 100, 2))
        text = text.replacing("MM", with: padded(month, 2))
        return text.replacing("DD", with: padded(day, 2))
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
