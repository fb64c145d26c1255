import Documents
import Testing

/// The date of flight is a day of the year; its year is the first in which that day is today or later, within a year.
@Suite struct BCBPDateTests {
    /// The guide's first example with another date of flight.
    static func pass(day: String) -> String {
        "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 \(day)J001A0025 100"
    }

    @Test(arguments: [
        // Across a year end.
        ("364", CalendarDate(year: 2026, month: 12, day: 30), CalendarDate(year: 2026, month: 12, day: 30)),
        ("365", CalendarDate(year: 2026, month: 12, day: 30), CalendarDate(year: 2026, month: 12, day: 31)),
        ("001", CalendarDate(year: 2026, month: 12, day: 30), CalendarDate(year: 2027, month: 1, day: 1)),
        ("363", CalendarDate(year: 2026, month: 12, day: 30), CalendarDate(year: 2027, month: 12, day: 29)),
        // Leap days: day 60 is February 29th in a leap year, March 1st otherwise.
        ("060", CalendarDate(year: 2028, month: 1, day: 10), CalendarDate(year: 2028, month: 2, day: 29)),
        ("060", CalendarDate(year: 2026, month: 1, day: 10), CalendarDate(year: 2026, month: 3, day: 1)),
        ("059", CalendarDate(year: 2028, month: 2, day: 29), CalendarDate(year: 2029, month: 2, day: 28)),
        ("060", CalendarDate(year: 2027, month: 3, day: 2), CalendarDate(year: 2028, month: 2, day: 29)),
        // Day 366 exists in leap years only.
        ("366", CalendarDate(year: 2028, month: 3, day: 1), CalendarDate(year: 2028, month: 12, day: 31)),
        ("366", CalendarDate(year: 2027, month: 12, day: 31), CalendarDate(year: 2028, month: 12, day: 31)),
        ("366", CalendarDate(year: 2100, month: 1, day: 1), nil),
        ("366", CalendarDate(year: 2000, month: 12, day: 31), CalendarDate(year: 2000, month: 12, day: 31)),
    ])
    func dayOfYearTakesTheNextYearItFallsIn(day: String, today: CalendarDate, expected: CalendarDate?) throws {
        let result = BCBP.parse(Self.pass(day: day), today: today)
        if let expected {
            #expect(try result.get().legs[0].flightDate == expected)
        } else {
            #expect(throws: BCBPError.self) { try result.get() }
        }
    }

    @Test(arguments: [
        CalendarDate(year: 2026, month: 6, day: 1), CalendarDate(year: 2027, month: 1, day: 1), CalendarDate(year: 2029, month: 12, day: 31),
    ])
    func day366OutOfALeapYearsReachIsAnError(today: CalendarDate) {
        #expect(
            throws: BCBPError(.invalid, field: "date of flight, leg 1", offset: 44, detail: "day 366 falls in no year between \(iso(today)) and a year later")
        ) {
            try BCBP.parse(Self.pass(day: "366"), today: today).get()
        }
    }

    @Test(arguments: ["000", "   "])
    func blankOrZeroDayHasNoDate(day: String) throws {
        let pass = try parsed(Self.pass(day: day))
        #expect(pass.legs[0].flightDate == nil)
        #expect(pass.legs[0].flightDay == nil)
        #expect(!pass.legs[0].fields.contains { $0.name == "flight_date" })
    }

    @Test(arguments: ["367", "999", "3A6", "-12"])
    func impossibleDaysAreErrors(day: String) {
        #expect(throws: BCBPError.self) { try parsed(Self.pass(day: day)) }
        if case .failure(let error) = BCBP.parse(Self.pass(day: day), today: CalendarDate(year: 2026, month: 1, day: 1)) {
            #expect(error.kind == .invalid)
            #expect(error.field == "date of flight, leg 1")
        }
    }

    func iso(_ date: CalendarDate) -> String {
        "\(date.year)-\(date.month < 10 ? "0" : "")\(date.month)-\(date.day < 10 ? "0" : "")\(date.day)"
    }
}
