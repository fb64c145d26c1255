import Documents

/// What an application identifier's data looks like.
struct AISpec: Sendable {
    enum Kind: Sendable {
        /// Digits ending in a GS1 mod-10 check digit.
        case checked
        /// YYMMDD.
        case date
        /// Digits.
        case numeric
        /// GS1's 82-character set; not checked further.
        case text
    }

    let title: String
    let kind: Kind
    /// Set for AIs whose data always has this length.
    let fixedLength: Int?
    /// The longest data allowed.
    let maxLength: Int

    static func fixed(_ length: Int, _ title: String, _ kind: Kind = .numeric) -> AISpec {
        AISpec(title: title, kind: kind, fixedLength: length, maxLength: length)
    }

    static func variable(_ max: Int, _ title: String, _ kind: Kind = .text) -> AISpec {
        AISpec(title: title, kind: kind, fixedLength: nil, maxLength: max)
    }
}

extension GS1 {
    /// The application identifiers we understand, from the GS1 General Specifications.
    static let table: [String: AISpec] = {
        var table: [String: AISpec] = [
            "00": .fixed(18, "SSCC", .checked),
            "01": .fixed(14, "GTIN", .checked),
            "02": .fixed(14, "CONTENT", .checked),
            "10": .variable(20, "BATCH/LOT"),
            "11": .fixed(6, "PROD DATE", .date),
            "12": .fixed(6, "DUE DATE", .date),
            "13": .fixed(6, "PACK DATE", .date),
            "15": .fixed(6, "BEST BEFORE or BEST BY", .date),
            "16": .fixed(6, "SELL BY", .date),
            "17": .fixed(6, "USE BY OR EXPIRY", .date),
            "20": .fixed(2, "VARIANT"),
            "21": .variable(20, "SERIAL"),
            "22": .variable(20, "CPV"),
            "235": .variable(28, "TPX"),
            "240": .variable(30, "ADDITIONAL ID"),
            "241": .variable(30, "CUST. PART No."),
            "242": .variable(6, "MTO VARIANT", .numeric),
            "243": .variable(20, "PCN"),
            "250": .variable(30, "SECONDARY SERIAL"),
            "251": .variable(30, "REF. TO SOURCE"),
            "253": .variable(30, "GDTI"),
            "254": .variable(20, "GLN EXTENSION COMPONENT"),
            "255": .variable(25, "GCN", .numeric),
            "30": .variable(8, "VAR. COUNT", .numeric),
            "37": .variable(8, "COUNT", .numeric),
            "400": .variable(30, "ORDER NUMBER"),
            "401": .variable(30, "GINC"),
            "402": .fixed(17, "GSIN", .checked),
            "403": .variable(30, "ROUTE"),
            "420": .variable(20, "SHIP TO POST"),
            "421": .variable(12, "SHIP TO POST"),
            "422": .fixed(3, "ORIGIN"),
            "423": .variable(15, "COUNTRY - INITIAL PROCESS.", .numeric),
            "424": .fixed(3, "COUNTRY - PROCESS."),
            "425": .variable(15, "COUNTRY - DISASSEMBLY", .numeric),
            "426": .fixed(3, "COUNTRY - FULL PROCESS"),
            "427": .variable(3, "ORIGIN SUBDIVISION"),
            "7001": .fixed(13, "NSN"),
            "7002": .variable(30, "MEAT CUT"),
            "7003": .fixed(10, "EXPIRY TIME"),
            "7040": .fixed(4, "UIC+EXT"),
            "8001": .fixed(14, "DIMENSIONS"),
            "8002": .variable(20, "CMT No."),
            "8003": .variable(30, "GRAI"),
            "8004": .variable(30, "GIAI"),
            "8005": .fixed(6, "PRICE PER UNIT"),
            "8006": .fixed(18, "ITIP"),
            "8007": .variable(34, "IBAN"),
            "8008": .variable(12, "PROD TIME", .numeric),
            "8010": .variable(30, "CPID"),
            "8011": .variable(12, "CPID SERIAL", .numeric),
            "8012": .variable(20, "VERSION"),
            "8013": .variable(25, "GMN"),
            "8017": .fixed(18, "GSRN - PROVIDER", .checked),
            "8018": .fixed(18, "GSRN - RECIPIENT", .checked),
            "8019": .variable(10, "SRIN", .numeric),
            "8020": .variable(25, "REF No."),
            "8200": .variable(70, "PRODUCT URL"),
            "90": .variable(30, "INTERNAL"),
        ]
        for ai in 410...417 { table[String(ai)] = .fixed(13, "GLN", .checked) }
        for ai in 91...99 { table[String(ai)] = .variable(90, "INTERNAL") }
        // Four-digit measures: the fourth digit is the number of decimals.
        let measures: [(Int, String)] = [
            (310, "NET WEIGHT (kg)"), (311, "LENGTH (m)"), (312, "WIDTH (m)"), (313, "HEIGHT (m)"),
            (314, "AREA (m2)"), (315, "NET VOLUME (l)"), (316, "NET VOLUME (m3)"), (320, "NET WEIGHT (lb)"),
            (330, "GROSS WEIGHT (kg)"), (340, "GROSS WEIGHT (lb)"), (356, "NET WEIGHT (t oz)"),
        ]
        for (prefix, title) in measures {
            for decimals in 0...5 { table["\(prefix)\(decimals)"] = .fixed(6, title) }
        }
        for decimals in 0...9 {
            table["390\(decimals)"] = .variable(15, "AMOUNT", .numeric)
            table["391\(decimals)"] = .variable(18, "AMOUNT", .numeric)
            table["392\(decimals)"] = .variable(15, "PRICE", .numeric)
            table["393\(decimals)"] = .variable(18, "PRICE", .numeric)
        }
        return table
    }()
}
