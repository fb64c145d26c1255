// A parsed IATA boarding pass (Resolution 792), and its fields in the order consumers and templates see them.

/// An IATA Bar Coded Boarding Pass: the passenger, one to four legs, and the optional sections kept as they came.
public struct BoardingPass: Equatable, Sendable {
    /// `M`, the only format code Resolution 792 defines.
    public var formatCode: String
    /// The passenger name field, trimmed: `SURNAME/GIVEN` (a title may follow the given name without a separator).
    public var passengerName: String
    /// The part before `/`, or the whole name when there is none.
    public var passengerFamilyName: String
    /// The part after `/`; nil when there is none or it is blank.
    public var passengerGivenName: String?
    /// True for an electronic ticket (`E`).
    public var electronicTicket: Bool
    public var legs: [Leg]
    /// The first leg's conditional unique items; nil when the pass has no version marker (`>`).
    public var conditional: Conditional?
    /// What follows `^`: the type of security data, its hexadecimal length and the data itself, as it came.
    public var securityData: String?

    /// One flight of the pass.
    public struct Leg: Equatable, Sendable {
        /// Operating carrier PNR code.
        public var pnr: String?
        /// From city airport code.
        public var from: String?
        /// To city airport code.
        public var to: String?
        /// Operating carrier designator.
        public var carrier: String?
        /// Without the padding zeros, with any suffix letter: `0834 ` is `834`, `0072A` is `72A`.
        public var flightNumber: String?
        /// The date-of-flight day of the year as coded; nil when blank or `000`.
        public var flightDay: Int?
        /// That day in the year it next falls on from the day the pass was read.
        public var flightDate: CalendarDate?
        public var compartment: String?
        /// Without padding zeros: `012A` is `12A`; `INF`, `GATE` and `STBY` stay as they are.
        public var seat: String?
        /// Without padding zeros: `0025 ` is `25`.
        public var checkInSequence: String?
        public var passengerStatus: String?
        /// The leg's conditional repeated items (from their size field on), as they came.
        public var conditional: String?
        /// The repeated items by name (airline_numeric_code, document_serial_number, ..., fast_track), blank ones left out.
        public var conditionalItems: [DocumentField]
        /// For individual airline use, as it came.
        public var airlinePrivate: String?
    }

    /// The first leg's conditional unique section.
    public struct Conditional: Equatable, Sendable {
        /// The version number after `>`; nil when the section ends after `>`.
        public var version: String?
        /// From `>` to the end of the unique items, as it came.
        public var raw: String
        /// The unique items by name (passenger_description, check_in_source, ..., baggage_tags_3), blank ones left out.
        public var items: [DocumentField]

        public init(version: String?, raw: String, items: [DocumentField]) {
            self.version = version
            self.raw = raw
            self.items = items
        }
    }

    /// The pass as named fields, in a stable order; absent and blank fields are left out.
    public var fields: [DocumentField] {
        var fields: [DocumentField] = [
            DocumentField("format_code", .text(formatCode)),
            DocumentField("legs_count", .number(legs.count)),
        ]
        if !passengerName.isEmpty { fields.append(DocumentField("passenger_name", .text(passengerName))) }
        if !passengerFamilyName.isEmpty { fields.append(DocumentField("passenger_family_name", .text(passengerFamilyName))) }
        if let passengerGivenName { fields.append(DocumentField("passenger_given_name", .text(passengerGivenName))) }
        fields.append(DocumentField("electronic_ticket", .flag(electronicTicket)))
        fields.append(DocumentField("legs", .records(legs.map(\.fields))))
        if let conditional { fields.append(DocumentField("conditional", .text(conditional.raw))) }
        if let securityData { fields.append(DocumentField("security_data", .text(securityData))) }
        return fields
    }
}

extension BoardingPass.Leg {
    /// The leg as named fields, in a stable order; absent and blank fields are left out.
    public var fields: [DocumentField] {
        let texts: [(String, String?)] = [
            ("pnr", pnr), ("from", from), ("to", to), ("carrier", carrier), ("flight_number", flightNumber),
            ("flight_date", flightDate.map(\.iso)), ("compartment", compartment), ("seat", seat),
            ("check_in_sequence", checkInSequence), ("passenger_status", passengerStatus), ("conditional", conditional),
            ("airline_private", airlinePrivate),
        ]
        return texts.compactMap { name, value in value.map { DocumentField(name, .text($0)) } }
    }
}
