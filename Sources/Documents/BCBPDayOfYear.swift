// Days of the year for the boarding pass's dates: BCBP gives a flight's date as a day of the year (its "Julian date") without the year.

/// Day-of-year arithmetic for the boarding pass's flight dates.
enum DayOfYear {
    static func days(in year: Int) -> Int { CalendarDate.isLeap(year) ? 366 : 365 }

    /// The date of day `number` (1 is January 1st) of `year`, or nil when the year has no such day.
    static func date(_ number: Int, of year: Int) -> CalendarDate? {
        guard number >= 1, number <= days(in: year) else { return nil }
        let lengths = [31, CalendarDate.isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
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
}
