// The dates of AAMVA documents: the age on a day, and the two orders a date is written in.

/// Calendar arithmetic for the AAMVA parser.
enum AAMVACalendar {
    /// Whole years from `birth` to `date`: the age on that day. A birthday on February 29 comes on
    /// March 1 in other years, as in most of the jurisdictions' laws.
    static func years(from birth: CalendarDate, to date: CalendarDate) -> Int {
        var years = date.year - birth.year
        if (date.month, date.day) < (birth.month, birth.day) { years -= 1 }
        return years
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
        let monthFirst = CalendarDate(checkedYear: number(4..<8), month: number(0..<2), day: number(2..<4))
        let yearFirst = CalendarDate(checkedYear: number(0..<4), month: number(4..<6), day: number(6..<8))
        return self == .monthDayYear ? monthFirst ?? yearFirst : yearFirst ?? monthFirst
    }
}
