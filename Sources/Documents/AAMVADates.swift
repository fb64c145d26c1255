// The dates of AAMVA documents: validation, order, age and ISO text, as functions beside
// `CalendarDate` rather than members of it, because the boarding pass parser shares that type.
// The module has no clock: the scanner passes its local date, so age and expiry follow the lane's
// day, and tests fix it.

/// Calendar arithmetic for the AAMVA parser.
enum AAMVACalendar {
    /// The date, or nil if there is no such day (month 13, February 30, year 0 or past 9999).
    static func date(year: Int, month: Int, day: Int) -> CalendarDate? {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= daysIn(month: month, year: year)
        else { return nil }
        return CalendarDate(year: year, month: month, day: day)
    }

    static func isBefore(_ lhs: CalendarDate, _ rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Whole years from `birth` to `date`: the age on that day. A birthday on February 29 comes on
    /// March 1 in other years, as in most of the jurisdictions' laws.
    static func years(from birth: CalendarDate, to date: CalendarDate) -> Int {
        var years = date.year - birth.year
        if (date.month, date.day) < (birth.month, birth.day) { years -= 1 }
        return years
    }

    /// ISO 8601, YYYY-MM-DD.
    static func iso(_ date: CalendarDate) -> String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// The two orders Annex D writes a date in (F8N, eight digits).
enum AAMVADateOrder {
    /// MMDDCCYY: U.S. documents from version 2 on.
    case monthDayYear
    /// CCYYMMDD: Canadian documents, and every document of version 1 (AAMVA DL/ID-2000).
    case yearMonthDay

    /// The date in `text` read in this order or, when that gives no real day, in the other one:
    /// some jurisdictions (Wyoming's 2009 cards, for one) wrote the other order.
    func date(_ text: String) -> CalendarDate? {
        let digits = Array(text.utf8)
        // Some jurisdictions follow the date with a letter in the same element (New Hampshire, 2013).
        guard digits.count >= 8, digits[0..<8].allSatisfy({ (0x30...0x39).contains($0) }),
            digits.count == 8 || !(0x30...0x39).contains(digits[8])
        else { return nil }
        let number = { (range: Range<Int>) in digits[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let monthFirst = AAMVACalendar.date(year: number(4..<8), month: number(0..<2), day: number(2..<4))
        let yearFirst = AAMVACalendar.date(year: number(0..<4), month: number(4..<6), day: number(6..<8))
        return self == .monthDayYear ? monthFirst ?? yearFirst : yearFirst ?? monthFirst
    }
}
