// A driver's licence or ID card as its AAMVA barcode describes it, and the named fields consumers see.

/// A North American driver's licence or ID card, read from its PDF417 barcode (AAMVA DL/ID Card
/// Design Standard, Annex D). Values are as the document holds them, padding trimmed; dates are
/// calendar dates whatever order the document wrote them in.
public struct IDDocument: Equatable, Sendable {
    /// Which of the two documents the standard describes.
    public enum Kind: String, Sendable {
        case driverLicense = "DL"
        case identificationCard = "ID"
    }

    /// The cardholder's sex as `DBC` codes it (1, 2, 9; version 1 wrote M and F).
    public enum Sex: String, Sendable {
        case male = "M"
        case female = "F"
        /// Code 9, "not specified", which several jurisdictions print as X.
        case unspecified = "X"
    }

    public internal(set) var kind: Kind
    /// The header's Issuer Identification Number, six digits.
    public internal(set) var issuerIIN: String
    /// The jurisdiction the IIN belongs to; nil for a number that is not in AAMVA's table.
    public internal(set) var issuer: AAMVAIssuer?
    /// The version of the standard the barcode follows: 1 for DL/ID-2000 up to 11 for the 2025 standard.
    public internal(set) var aamvaVersion: Int
    /// The issuer's own revision of its layout; versions 0 and 1 have none.
    public internal(set) var jurisdictionVersion: Int?

    public internal(set) var familyName: String?
    public internal(set) var givenName: String?
    /// Several middle names are separated by commas, as the standard writes them.
    public internal(set) var middleName: String?
    public internal(set) var suffix: String?
    /// Whether the issuer cut the name short to fit (`DDE`, `DDF`, `DDG`); nil when unknown or absent.
    public internal(set) var familyNameTruncated: Bool?
    public internal(set) var givenNameTruncated: Bool?
    public internal(set) var middleNameTruncated: Bool?

    public internal(set) var birthDate: CalendarDate?
    public internal(set) var issueDate: CalendarDate?
    public internal(set) var expiryDate: CalendarDate?
    public internal(set) var sex: Sex?
    /// The licence or ID number (`DAQ`).
    public internal(set) var customerID: String?

    public internal(set) var street: String?
    public internal(set) var street2: String?
    public internal(set) var city: String?
    /// The address's state or province code (`DAJ`), which may differ from the issuer's.
    public internal(set) var jurisdictionCode: String?
    /// ZIP codes as 12345 or 12345-6789, Canadian codes as A1A 1A1, others as written.
    public internal(set) var postalCode: String?
    /// `DCG`: USA or CAN.
    public internal(set) var country: String?

    /// Whole years since the birth date, on the day the caller gave; nil without a birth date.
    public internal(set) var age: Int?
    /// The ages the caller asked about, in its order: `age_over_18` and the like.
    public internal(set) var ageThresholds: [Int] = []
    /// Whether the expiry date has passed: a document is valid through the day it expires.
    public internal(set) var expired: Bool?

    /// What the standard asks for and this document lacks or contradicts, one line each
    /// ("missing mandatory DCG", "IIN 999999 is not in AAMVA's table"). Real cards often lack
    /// elements the standard calls mandatory, so these do not stop a read; the fields they would
    /// have given are absent instead.
    public internal(set) var problems: [String] = []
    /// Every element of the DL or ID subfile by its ID, as written, for what `fields` leaves out.
    public internal(set) var elements: [String: String] = [:]
    /// The elements of the jurisdiction's own `Z` subfiles (ZVA, ZCA, ...), which the standard
    /// leaves to each issuer.
    public internal(set) var jurisdictionElements: [String: String] = [:]

    init(kind: Kind, issuerIIN: String, aamvaVersion: Int) {
        self.kind = kind
        self.issuerIIN = issuerIIN
        self.aamvaVersion = aamvaVersion
    }

    /// Whether the cardholder is `years` old or older on the caller's day; nil without a birth date.
    public func isAtLeast(_ years: Int) -> Bool? { age.map { $0 >= years } }

    /// The document as named fields, in a stable order; absent values are left out.
    public var fields: [DocumentField] {
        var fields: [DocumentField] = []
        func add(_ name: String, _ text: String?) {
            if let text { fields.append(DocumentField(name, .text(text))) }
        }
        func add(_ name: String, _ flag: Bool?) {
            if let flag { fields.append(DocumentField(name, .flag(flag))) }
        }
        func add(_ name: String, _ number: Int?) {
            if let number { fields.append(DocumentField(name, .number(number))) }
        }
        add("document_type", kind.rawValue)
        add("issuer", issuer?.name)
        add("issuer_country", issuer?.country)
        add("issuer_iin", issuerIIN)
        add("aamva_version", aamvaVersion)
        add("jurisdiction_version", jurisdictionVersion)
        add("family_name", familyName)
        add("family_name_truncated", familyNameTruncated)
        add("given_name", givenName)
        add("given_name_truncated", givenNameTruncated)
        add("middle_name", middleName)
        add("middle_name_truncated", middleNameTruncated)
        add("suffix", suffix)
        add("birth_date", birthDate.map(\.iso))
        add("issue_date", issueDate.map(\.iso))
        add("expiry_date", expiryDate.map(\.iso))
        add("sex", sex?.rawValue)
        add("customer_id", customerID)
        add("street", street)
        add("street_2", street2)
        add("city", city)
        add("jurisdiction_code", jurisdictionCode)
        add("postal_code", postalCode)
        add("country", country)
        add("age", age)
        for years in ageThresholds { add("age_over_\(years)", isAtLeast(years)) }
        add("expired", expired)
        return fields
    }
}
