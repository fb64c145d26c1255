// The calendar date both document parsers take for "today": a copy of the one the boarding pass
// branch declares in BCBPCalendar.swift, declaration for declaration, so that this branch builds on
// its own. When the two branches merge, delete this file. The AAMVA parser's date arithmetic lives in
// AAMVADates.swift, beside the type rather than in it, so the shared type stays as it is.

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
