/// How GTINs leave the scanner: the EAN/UPC forms POS software expects, as commercial scanners
/// offer them (UPC-E expanded, UPC-A as EAN-13, EAN-8 as GTIN-13 or GTIN-14, the check digit kept
/// or stripped), and a GS1 Digital Link sent as the element string it stands for. The defaults send
/// every code as printed.
public struct GTINOptions: Sendable, Hashable {
    /// UPC-A as its 12 printed digits, or as 13 (EAN-13, a leading 0).
    public enum UPCA: String, Sendable, Hashable, CaseIterable {
        case printed = "12"
        case ean13 = "13"
    }

    /// UPC-E as its 8 printed digits, expanded to the 12 of UPC-A, or to 13.
    public enum UPCE: String, Sendable, Hashable, CaseIterable {
        case printed = "8"
        case upca = "12"
        case ean13 = "13"
    }

    /// EAN-8 as its 8 printed digits, or padded to GTIN-13 or GTIN-14.
    public enum EAN8: String, Sendable, Hashable, CaseIterable {
        case printed = "8"
        case gtin13 = "13"
        case gtin14 = "14"
    }

    /// A GS1 Digital Link as the URI that was printed, or as its GS1 element string: AIs and values,
    /// GS (FNC1) after each variable-length one, with the AIM identifier of GS1 data (`]Q3`, `]d2`).
    public enum DigitalLink: String, Sendable, Hashable, CaseIterable {
        case uri
        case elementString = "element-string"
    }

    public var upca = UPCA.printed
    public var upce = UPCE.printed
    public var ean8 = EAN8.printed
    /// Whether EAN/UPC codes keep their last digit, the check digit.
    public var checkDigit = true
    public var digitalLink = DigitalLink.uri

    public init() {}

    /// Whether these options leave every code as it was printed.
    public var isDefault: Bool { self == GTINOptions() }

    /// `read`'s data as these options send it, with the AIM identifier that fits that data.
    public func apply(to read: Read) -> (bytes: [UInt8], aim: String) {
        if digitalLink == .elementString, read.gs1Source == "digital-link", let elements = read.gs1 {
            return (Array(GS1.elementString(elements).utf8), read.symbologyID.aimIdentifier(gs1: true))
        }
        guard read.symbologyID.isEANUPC, let text = read.text, text.allSatisfy(\.isASCIIDigit) else {
            return ([UInt8](read.bytes), read.aim)
        }
        var digits = text
        var aim = read.aim
        switch read.symbologyID {
        case .upca where upca == .ean13 && digits.count == 12:
            digits = "0" + digits
        case .upce where digits.count == 8 && upce != .printed:
            digits = GTINOptions.expandUPCE(digits) ?? digits
            if upce == .ean13 && digits.count == 12 { digits = "0" + digits }
        case .ean8 where digits.count == 8 && ean8 != .printed:
            digits = String(repeating: "0", count: ean8 == .gtin13 ? 5 : 6) + digits
            // ISO/IEC 15424: 13 digits are EAN-13 data, ]E0; a GTIN-14 has no EAN identifier of its own.
            if ean8 == .gtin13 { aim = "]E0" }
        default:
            break
        }
        if !checkDigit { digits.removeLast() }
        return (Array(digits.utf8), aim)
    }

    /// The 12 UPC-A digits a UPC-E code stands for (number system, six digits, check digit), by
    /// the zero-suppression rules of GS1 General Specifications 5.2.2.4.2; nil when `upce` is not
    /// 8 digits with number system 0 or 1.
    public static func expandUPCE(_ upce: String) -> String? {
        let d = upce.compactMap(\.wholeNumberValue)
        guard d.count == 8, upce.count == 8, d[0] <= 1 else { return nil }
        let body: [Int] =
            switch d[6] {
            case 0, 1, 2: [d[1], d[2], d[6], 0, 0, 0, 0, d[3], d[4], d[5]]
            case 3: [d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4], d[5]]
            case 4: [d[1], d[2], d[3], d[4], 0, 0, 0, 0, 0, d[5]]
            default: [d[1], d[2], d[3], d[4], d[5], 0, 0, 0, 0, d[6]]
            }
        return ([d[0]] + body + [d[7]]).map(String.init).joined()
    }
}

extension GS1 {
    /// AIs whose data length is predefined by their first two digits (GS1 General Specifications,
    /// figure 7.8.5-2): no FNC1 follows them in an element string.
    static let predefinedLengthPrefixes: Set<String> = [
        "00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "31", "32", "33", "34", "35", "36", "41",
    ]

    /// `elements` as one element string, as a GS1 symbol carries it after its leading FNC1: GS
    /// after each element of variable length but the last.
    public static func elementString(_ elements: [GS1Element]) -> String {
        var text = ""
        for (index, element) in elements.enumerated() {
            text += element.ai + element.value
            if index < elements.count - 1, !predefinedLengthPrefixes.contains(String(element.ai.prefix(2))) {
                text.append(groupSeparator)
            }
        }
        return text
    }
}

extension Read {
    /// The GTIN the code carries, as 14 digits: AI (01) of GS1 data, or an EAN/UPC code's number
    /// (UPC-E expanded). Nil for other codes.
    public var gtin: String? {
        if let gtin = gs1?.first(where: { $0.ai == "01" })?.value { return gtin }
        guard symbologyID.isEANUPC, var digits = text, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        if symbologyID == .upce { digits = GTINOptions.expandUPCE(digits) ?? "" }
        guard (8...14).contains(digits.count), GS1.hasValidCheckDigit(digits) else { return nil }
        return String(repeating: "0", count: 14 - digits.count) + digits
    }
}

extension Symbology {
    /// EAN-13, EAN-8, UPC-A, UPC-E, and ISBN (an EAN-13 by another name): codes whose data is a GTIN.
    public var isEANUPC: Bool {
        switch self {
        case .ean13, .ean8, .upca, .upce, .isbn13: true
        default: false
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension GS1 {
    /// Whether `ai` is an application identifier this scanner knows.
    public static func isKnown(ai: String) -> Bool { table[ai] != nil }
}
