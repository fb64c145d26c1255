// The AAMVA DL/ID barcode: the PDF417 on the back of North American driver's licences and ID cards,
// read into an IDDocument (DL/ID Card Design Standard, Annex D, versions 1 to 11).

/// Reads the AAMVA DL/ID barcode of driver's licences and ID cards.
public enum AAMVA {
    /// The version of the newest standard, the 2025 DL/ID Card Design Standard. Later versions are
    /// read as this one: each revision so far has only added elements and kept the structure.
    public static let currentVersion = 11

    /// Whether `bytes` start like an AAMVA file: the compliance indicator `@`, the separators LF,
    /// RS and CR, and the file type `ANSI ` (or `AAMVA`, on cards from before the 2000 standard).
    /// A cheap test, so that a full read is tried only on data that could be a document.
    public static func looksLikeDocument(_ bytes: [UInt8]) -> Bool {
        AAMVAFile.fileTypeStart(bytes) != nil
    }

    /// Reads a driver's licence or ID card from its barcode's bytes.
    ///
    /// - Parameters:
    ///   - today: the scanner's local date, for `age`, `age_over_N` and `expired`.
    ///   - ageThresholds: the ages to answer `age_over_N` for, in the order the fields list them.
    /// - Returns: the document; or, when the header, the subfile directory or a subfile is broken,
    ///   or a date, sex or truncation element holds something the standard does not allow, a
    ///   failure that names it. A garbled value means the data cannot be trusted (PDF417 corrects
    ///   the print's errors, so a bad value was written so), while missing elements are common on
    ///   real cards and only listed in `problems`.
    public static func parse(_ bytes: [UInt8], today: CalendarDate, ageThresholds: [Int] = [18, 21])
        -> Result<IDDocument, AAMVAError>
    {
        AAMVAFile.read(bytes).flatMap { file in
            Result { try document(file, today: today, ageThresholds: ageThresholds) }
                .mapError { $0 as? AAMVAError ?? AAMVAError("\($0)") }
        }
    }

    /// Elements the standard makes mandatory on both DLs and IDs, of those `IDDocument` reads.
    /// Version 1 named the holder in one element, `DAA`; versions 2 and 3 had `DCT`, the given
    /// names; the 2009 standard (version 4) split them into `DAC` and `DAD` and added the
    /// truncation flags.
    static func mandatoryElements(version: Int) -> [String] {
        let everywhere = ["DAQ", "DBA", "DBB", "DBC", "DBD", "DAG", "DAI", "DAJ", "DAK"]
        switch version {
        case ...1: return ["DAA"] + everywhere
        case 2...3: return ["DCS", "DCT"] + everywhere + ["DCG"]
        default: return ["DCS", "DAC", "DAD"] + everywhere + ["DCG", "DDE", "DDF", "DDG"]
        }
    }

    private static func document(_ file: AAMVAFile, today: CalendarDate, ageThresholds: [Int]) throws
        -> IDDocument
    {
        guard let main = file.subfiles.first(where: { $0.type == "DL" || $0.type == "ID" }),
            let kind = IDDocument.Kind(rawValue: main.type)
        else {
            let types = file.subfiles.map(\.type).joined(separator: ", ")
            throw AAMVAError("no DL or ID subfile (subfiles: \(types))")
        }
        var document = IDDocument(kind: kind, issuerIIN: file.iin, aamvaVersion: file.version)
        document.jurisdictionVersion = file.jurisdictionVersion
        document.issuer = Int(file.iin).flatMap(AAMVAIssuer.withIIN)
        if document.issuer == nil { document.problems.append("IIN \(file.iin) is not in AAMVA's table") }
        // The standard allows each element once; of a repeated one the first counts, so a later copy
        // cannot replace what a check may already have read.
        for element in main.elements where document.elements[element.id] == nil {
            document.elements[element.id] = element.value
        }
        for subfile in file.subfiles where subfile.type.hasPrefix("Z") {
            for element in subfile.elements where document.jurisdictionElements[element.id] == nil {
                document.jurisdictionElements[element.id] = element.value
            }
        }
        let elements = document.elements.filter { !$0.value.isEmpty }
        for id in mandatoryElements(version: file.version) where elements[id] == nil {
            // Version 1 may name the holder in parts (DAB, DAC) instead of DAA.
            if id == "DAA" && (elements["DAB"] != nil || elements["DCS"] != nil) { continue }
            document.problems.append("missing mandatory \(id)")
        }

        readName(elements, into: &document)
        document.familyNameTruncated = try truncation(elements, "DDE")
        document.givenNameTruncated = try truncation(elements, "DDF")
        document.middleNameTruncated = try truncation(elements, "DDG")

        document.customerID = elements["DAQ"]
        document.street = elements["DAG"]
        document.street2 = elements["DAH"]
        document.city = elements["DAI"]
        document.jurisdictionCode = elements["DAJ"]
        document.country = elements["DCG"]
        let country = countryForFormats(document)
        document.postalCode = elements["DAK"].map { postalCode($0, country: country) }

        // Version 1 wrote every date CCYYMMDD; from version 2 on, the U.S. writes MMDDCCYY and
        // Canada CCYYMMDD. The document's own country decides; the issuer's when it names none.
        let order: AAMVADateOrder = file.version <= 1 || country != "USA" ? .yearMonthDay : .monthDayYear
        func date(_ id: String) throws -> CalendarDate? {
            // Eight zeros: the issuer has no date to give (seen for issue dates on old cards).
            guard let text = elements[id], text != "00000000" else { return nil }
            guard let date = order.date(text) else { throw AAMVAError("\(id): not a date: \(text)") }
            return date
        }
        document.birthDate = try date("DBB")
        document.issueDate = try date("DBD")
        document.expiryDate = try date("DBA")
        document.sex = try sex(elements)

        if let birth = document.birthDate {
            if today < birth {
                document.problems.append(
                    "DBB: birth date \(birth.iso) is after today (\(today.iso))")
            } else {
                document.age = AAMVACalendar.years(from: birth, to: today)
            }
        }
        var seen = Set<Int>()
        // Ages people have; an age_over_-1 or age_over_100000 field would only confuse a template.
        document.ageThresholds = ageThresholds.filter { (0...150).contains($0) && seen.insert($0).inserted }
        document.expired = document.expiryDate.map { $0 < today }
        return document
    }

    /// The holder's names. Version 1 wrote them in one element, `DAA`, "FAMILY,GIVEN,MIDDLE,SUFFIX"
    /// (some issuers already split them into DAB, DAC, DAD, DAE); versions 2 and 3 put the given
    /// names together in `DCT`, commas between them; the 2009 standard on has DCS, DAC, DAD, DCU.
    private static func readName(_ elements: [String: String], into document: inout IDDocument) {
        let fullName = (elements["DAA"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingSpaces }
        func part(_ index: Int) -> String? {
            index < fullName.count && !fullName[index].isEmpty ? fullName[index] : nil
        }
        let givenNames = (elements["DCT"] ?? "").split(separator: ",").map { $0.trimmingSpaces }
            .filter { !$0.isEmpty }
        document.familyName = elements["DCS"] ?? elements["DAB"] ?? part(0)
        document.givenName = elements["DAC"] ?? givenNames.first ?? part(1)
        let laterGivenNames = givenNames.dropFirst().joined(separator: ",")
        // "NONE" is how several issuers fill the mandatory middle name of someone without one.
        document.middleName =
            (elements["DAD"] ?? (laterGivenNames.isEmpty ? nil : laterGivenNames) ?? part(2))
            .flatMap { $0.uppercased() == "NONE" ? nil : $0 }
        document.suffix = elements["DCU"] ?? elements["DAE"] ?? part(3)
    }

    /// `DDE`, `DDF`, `DDG`: T truncated, N not, U unknown (nil).
    private static func truncation(_ elements: [String: String], _ id: String) throws -> Bool? {
        switch elements[id] {
        case nil, "U": return nil
        case "T": return true
        case "N": return false
        case let value?: throw AAMVAError("\(id): not a truncation code (T, N or U): \(value)")
        }
    }

    private static func sex(_ elements: [String: String]) throws -> IDDocument.Sex? {
        switch elements["DBC"] {
        case nil: return nil
        case "1", "M": return .male
        case "2", "F": return .female
        case "9", "X": return .unspecified
        case let value?: throw AAMVAError("DBC: not a sex code (1, 2 or 9): \(value)")
        }
    }

    /// The country whose formats (date order, postal code) the document follows: `DCG` (Canada
    /// has also written CDN), else the issuer's, else the U.S., where most documents come from.
    private static func countryForFormats(_ document: IDDocument) -> String {
        switch document.country?.uppercased() {
        case "USA"?: return "USA"
        case "CAN"?, "CDN"?: return "CAN"
        default: return document.issuer?.country ?? "USA"
        }
    }

    /// `DAK` without its padding. A U.S. ZIP is nine digits with zeros for an unknown ZIP+4:
    /// "232690000" is 23269, "232691234" is 23269-1234. A Canadian code gets its middle space.
    static func postalCode(_ raw: String, country: String) -> String {
        let compact = raw.filter { $0 != " " && $0 != "-" }.uppercased()
        switch country {
        case "USA" where compact.count == 9 && compact.allSatisfy(\.isASCIIDigit):
            let zip = String(compact.prefix(5))
            return compact.hasSuffix("0000") ? zip : zip + "-" + compact.suffix(4)
        case "USA" where compact.count == 5 && compact.allSatisfy(\.isASCIIDigit):
            return compact
        case "CAN" where compact.count == 6:
            return compact.prefix(3) + " " + compact.suffix(3)
        default:
            return raw
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else {
            return ""
        }
        return String(self[first...last])
    }
}
