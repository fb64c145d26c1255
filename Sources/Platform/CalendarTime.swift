import FoundationEssentials
import Glibc

/// A moment broken down in UTC with the C library, for ISO 8601 text and GS1 centuries. Times are
/// written and read by hand: milliseconds kept, and no ICU-backed formatter or calendar touched on
/// the read path (they cost megabytes of resident memory in a daemon).
public struct UTCTime {
    public let year: Int
    /// `2026-11-24T16:05:21.123Z`.
    public let iso8601: String

    public init(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        year = Int(parts.tm_year) + 1900
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(milliseconds % 1000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        iso8601 = "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// The moment `text` names, in the form `iso8601` writes (the fraction may have 0 to 9 digits);
    /// nil for anything else.
    public static func date(iso8601 text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int32? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ (0x30...0x39).contains(bytes[$0]) }) else { return nil }
            return range.reduce(0) { $0 * 10 + Int32(bytes[$1] - 0x30) }
        }
        let separators: [(Int, UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")), (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), separators.allSatisfy({ bytes[$0.0] == $0.1 }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), (22...30).contains(bytes.count), let digits = number(20..<(bytes.count - 1)) else { return nil }
            fraction = Double(digits) / pow(10, Double(bytes.count - 21))
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        guard seconds != -1 || (year == 1969 && month == 12 && day == 31) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}

/// The machine's local calendar, through the C library (its time zone from /etc/localtime or TZ).
public enum LocalTime {
    /// Today's date in the machine's time zone: (year, month 1-12, day 1-31).
    public static func today() -> (year: Int, month: Int, day: Int) {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }
}

/// Character set conversion through glibc's iconv.
public enum Iconv {
    /// `bytes` in `charset` as a String, through iconv; nil when iconv cannot convert them.
    /// CP932 rather than SHIFT_JIS: glibc's SHIFT_JIS reads 0x5C as a yen sign, which breaks URLs.
    public static func text(of bytes: [UInt8], in charset: String) -> String? {
        let converter = iconv_open("UTF-8", charset)
        guard converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 3 + 1)
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = inBuffer.baseAddress
                var inLeft = inBuffer.count
                var outPointer = outBuffer.baseAddress
                var outLeft = outBuffer.count
                guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1, inLeft == 0 else { return nil }
                return outBuffer.count - outLeft
            }
        }
        guard let written else { return nil }
        return String(validating: output.prefix(written).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
