import Platform

/// Text in the two character sets found in codes besides UTF-8: Shift_JIS (Japanese QR codes,
/// which rarely name it) and ISO-8859-1 (the default of QR's byte mode, PDF417 and DataMatrix).
/// Both decoders hand over a code's bytes as encoded; this tells the two apart the way zxing-cpp's
/// `TextDecoder::GuessEncoding` does, and converts with glibc's iconv.
public enum LegacyText {
    /// The text of `bytes` that are not UTF-8, or nil when they look binary (control characters
    /// other than tab, line feed and carriage return) or fit neither character set.
    public static func decode(_ bytes: [UInt8]) -> String? {
        guard !bytes.contains(where: { ($0 < 0x20 && ![0x09, 0x0A, 0x0D].contains($0)) || $0 == 0x7F }) else { return nil }
        switch guess(bytes) {
        case .shiftJIS: return Iconv.text(of: bytes, in: "CP932")
        case .latin1: return latin1(bytes)
        case nil: return nil
        }
    }

    /// `bytes` as ISO-8859-1: every byte the code point of the same value.
    public static func latin1<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
    }

    enum Charset { case shiftJIS, latin1 }

    /// zxing-cpp 1.4's guess between Shift_JIS and ISO-8859-1 (its UTF-8 branch is left out: UTF-8
    /// is tried first, exactly).
    static func guess(_ bytes: [UInt8]) -> Charset? {
        var canBeLatin1 = true
        var canBeShiftJIS = true
        var sjisBytesLeft = 0
        var katakana = 0
        var katakanaWord = 0
        var doubleByteWord = 0
        var longestKatakanaWord = 0
        var longestDoubleByteWord = 0
        var latin1HighOther = 0
        for value in bytes {
            if canBeLatin1 {
                if value > 0x7F && value < 0xA0 {
                    canBeLatin1 = false
                } else if value > 0x9F && (value < 0xC0 || value == 0xD7 || value == 0xF7) {
                    latin1HighOther += 1
                }
            }
            guard canBeShiftJIS else { continue }
            if sjisBytesLeft > 0 {
                if value < 0x40 || value == 0x7F || value > 0xFC { canBeShiftJIS = false } else { sjisBytesLeft -= 1 }
            } else if value == 0x80 || value == 0xA0 || value > 0xEF {
                canBeShiftJIS = false
            } else if value > 0xA0 && value < 0xE0 {
                katakana += 1
                doubleByteWord = 0
                katakanaWord += 1
                longestKatakanaWord = max(longestKatakanaWord, katakanaWord)
            } else if value > 0x7F {
                sjisBytesLeft += 1
                katakanaWord = 0
                doubleByteWord += 1
                longestDoubleByteWord = max(longestDoubleByteWord, doubleByteWord)
            } else {
                katakanaWord = 0
                doubleByteWord = 0
            }
        }
        if sjisBytesLeft > 0 { canBeShiftJIS = false }
        if canBeShiftJIS && (longestKatakanaWord >= 3 || longestDoubleByteWord >= 3) { return .shiftJIS }
        // Short words: two katakana in the whole text, or at least 10 % of bytes that would be
        // Latin-1 punctuation, point to Shift_JIS.
        if canBeLatin1 && canBeShiftJIS {
            return (longestKatakanaWord == 2 && katakana == 2) || latin1HighOther * 10 >= bytes.count ? .shiftJIS : .latin1
        }
        return canBeLatin1 ? .latin1 : canBeShiftJIS ? .shiftJIS : nil
    }
}
