// The issuers of AAMVA documents, by Issuer Identification Number: AAMVA's IIN table (ISO/IEC 7812
// numbers it assigns to member jurisdictions), as the DL/ID Card Design Standard's header cites it.

/// A jurisdiction that issues AAMVA driver's licences and ID cards.
public struct AAMVAIssuer: Equatable, Sendable {
    /// The jurisdiction's name, as AAMVA's table writes it ("Virginia", "Prince Edward Island").
    public let name: String
    /// Its code: two letters (USPS, Canada Post), three for a Mexican state (ISO 3166-2), empty for the
    /// U.S. Department of State.
    public let code: String
    /// Its country, ISO 3166-1 alpha-3 as `DCG` writes it: "USA", "CAN" or "MEX".
    public let country: String

    /// The issuer with this IIN, or nil for a number that is not in AAMVA's table.
    public static func withIIN(_ iin: Int) -> AAMVAIssuer? { table[iin] }

    private init(_ name: String, _ code: String, _ country: String) {
        self.name = name
        self.code = code
        self.country = country
    }

    private static let table: [Int: AAMVAIssuer] = [
        // Numbers 604426 to 604434 came later, from a second block, to the newer members.
        604426: AAMVAIssuer("Prince Edward Island", "PE", "CAN"),
        604427: AAMVAIssuer("American Samoa", "AS", "USA"),
        604428: AAMVAIssuer("Quebec", "QC", "CAN"),
        604429: AAMVAIssuer("Yukon", "YT", "CAN"),
        604430: AAMVAIssuer("Northern Mariana Islands", "MP", "USA"),
        604431: AAMVAIssuer("Puerto Rico", "PR", "USA"),
        604432: AAMVAIssuer("Alberta", "AB", "CAN"),
        604433: AAMVAIssuer("Nunavut", "NU", "CAN"),
        604434: AAMVAIssuer("Northwest Territories", "NT", "CAN"),
        636000: AAMVAIssuer("Virginia", "VA", "USA"),
        636001: AAMVAIssuer("New York", "NY", "USA"),
        636002: AAMVAIssuer("Massachusetts", "MA", "USA"),
        636003: AAMVAIssuer("Maryland", "MD", "USA"),
        636004: AAMVAIssuer("North Carolina", "NC", "USA"),
        636005: AAMVAIssuer("South Carolina", "SC", "USA"),
        636006: AAMVAIssuer("Connecticut", "CT", "USA"),
        636007: AAMVAIssuer("Louisiana", "LA", "USA"),
        636008: AAMVAIssuer("Montana", "MT", "USA"),
        636009: AAMVAIssuer("New Mexico", "NM", "USA"),
        636010: AAMVAIssuer("Florida", "FL", "USA"),
        636011: AAMVAIssuer("Delaware", "DE", "USA"),
        636012: AAMVAIssuer("Ontario", "ON", "CAN"),
        636013: AAMVAIssuer("Nova Scotia", "NS", "CAN"),
        636014: AAMVAIssuer("California", "CA", "USA"),
        636015: AAMVAIssuer("Texas", "TX", "USA"),
        636016: AAMVAIssuer("Newfoundland and Labrador", "NL", "CAN"),
        636017: AAMVAIssuer("New Brunswick", "NB", "CAN"),
        636018: AAMVAIssuer("Iowa", "IA", "USA"),
        636019: AAMVAIssuer("Guam", "GU", "USA"),
        636020: AAMVAIssuer("Colorado", "CO", "USA"),
        636021: AAMVAIssuer("Arkansas", "AR", "USA"),
        636022: AAMVAIssuer("Kansas", "KS", "USA"),
        636023: AAMVAIssuer("Ohio", "OH", "USA"),
        636024: AAMVAIssuer("Vermont", "VT", "USA"),
        636025: AAMVAIssuer("Pennsylvania", "PA", "USA"),
        636026: AAMVAIssuer("Arizona", "AZ", "USA"),
        636027: AAMVAIssuer("U.S. Department of State", "", "USA"),
        636028: AAMVAIssuer("British Columbia", "BC", "CAN"),
        636029: AAMVAIssuer("Oregon", "OR", "USA"),
        636030: AAMVAIssuer("Missouri", "MO", "USA"),
        636031: AAMVAIssuer("Wisconsin", "WI", "USA"),
        636032: AAMVAIssuer("Michigan", "MI", "USA"),
        636033: AAMVAIssuer("Alabama", "AL", "USA"),
        636034: AAMVAIssuer("North Dakota", "ND", "USA"),
        636035: AAMVAIssuer("Illinois", "IL", "USA"),
        636036: AAMVAIssuer("New Jersey", "NJ", "USA"),
        636037: AAMVAIssuer("Indiana", "IN", "USA"),
        636038: AAMVAIssuer("Minnesota", "MN", "USA"),
        636039: AAMVAIssuer("New Hampshire", "NH", "USA"),
        636040: AAMVAIssuer("Utah", "UT", "USA"),
        636041: AAMVAIssuer("Maine", "ME", "USA"),
        636042: AAMVAIssuer("South Dakota", "SD", "USA"),
        636043: AAMVAIssuer("District of Columbia", "DC", "USA"),
        636044: AAMVAIssuer("Saskatchewan", "SK", "CAN"),
        636045: AAMVAIssuer("Washington", "WA", "USA"),
        636046: AAMVAIssuer("Kentucky", "KY", "USA"),
        636047: AAMVAIssuer("Hawaii", "HI", "USA"),
        636048: AAMVAIssuer("Manitoba", "MB", "CAN"),
        636049: AAMVAIssuer("Nevada", "NV", "USA"),
        636050: AAMVAIssuer("Idaho", "ID", "USA"),
        636051: AAMVAIssuer("Mississippi", "MS", "USA"),
        636052: AAMVAIssuer("Rhode Island", "RI", "USA"),
        636053: AAMVAIssuer("Tennessee", "TN", "USA"),
        636054: AAMVAIssuer("Nebraska", "NE", "USA"),
        636055: AAMVAIssuer("Georgia", "GA", "USA"),
        636056: AAMVAIssuer("Coahuila", "COA", "MEX"),
        636057: AAMVAIssuer("Hidalgo", "HID", "MEX"),
        636058: AAMVAIssuer("Oklahoma", "OK", "USA"),
        636059: AAMVAIssuer("Alaska", "AK", "USA"),
        636060: AAMVAIssuer("Wyoming", "WY", "USA"),
        636061: AAMVAIssuer("West Virginia", "WV", "USA"),
        636062: AAMVAIssuer("U.S. Virgin Islands", "VI", "USA"),
    ]
}
