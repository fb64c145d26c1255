// Days of the year for the boarding pass's dates: BCBP gives a flight's date as a day of the year (its "Julian date") without the year.

/// A day in the Gregorian calendar, without a time or a time zone.
public struct CalendarDate: Equatable, Sendable {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

/// Day-of-year arithmetic, kept apart from `CalendarDate` so the value type stays minimal.
enum DayOfYear {
    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func days(in year: Int) -> Int { isLeap(year) ? 366 : 365 }

    /// The date of day `number` (1 is January 1st) of `year`, or nil when the year has no such day.
    static func date(_ number: Int, of year: Int) -> CalendarDate? {
        guard number >= 1, number <= days(in: year) else { return nil }
        let lengths = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var remaining = number
        for (index, length) in lengths.enumerated() {
            if remaining <= length { return CalendarDate(year: year, month: index + 1, day: remaining) }
            remaining -= length
        }
        return nil
    }

    /// The first date on day `number` of a year that is `today` or later and no more than a year after it
    /// (a pass is read before its flight); nil when there is none, as for day 366 with no leap year's end in reach.
    static func nextDate(_ number: Int, onOrAfter today: CalendarDate) -> CalendarDate? {
        let yearLater = (today.year + 1, today.month, today.day)
        for year in [today.year, today.year + 1] {
            guard let date = date(number, of: year) else { continue }
            let key = (date.year, date.month, date.day)
            if key >= (today.year, today.month, today.day) && key <= yearLater { return date }
        }
        return nil
    }

    /// "2026-03-01".
    static func iso(_ date: CalendarDate) -> String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))"
    }
}
