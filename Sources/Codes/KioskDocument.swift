import Documents
import FoundationEssentials
import Platform

/// A read whose data is a kiosk document (docs/documents.md): an AAMVA driver's licence or
/// ID card, or an IATA boarding pass, parsed. Every field stays here, in memory, for templates and
/// rules; what consumers see is the config's choice (`Read.id`, `Read.boardingPass`).
public struct KioskDocument: Sendable, Hashable {
    /// What kind of document, as the socket's JSON key names it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case id
        case boardingPass = "boarding_pass"
    }

    public let kind: Kind
    /// Every field the parser found, in its order.
    public let fields: [DocumentField]

    public init(kind: Kind, fields: [DocumentField]) {
        self.kind = kind
        self.fields = fields
    }

    /// The field named `name`: a top-level field, or for a boarding pass, the first leg's.
    public func field(_ name: String) -> DocumentField.Value? {
        if let field = fields.first(where: { $0.name == name }) { return field.value }
        guard case .records(let legs) = fields.first(where: { $0.name == "legs" })?.value, let first = legs.first else { return nil }
        return first.first { $0.name == name }?.value
    }
}

extension KioskDocument.Kind {
    /// Every top-level field name the parser can give for this kind, in its order (`IDDocument.fields`,
    /// `BoardingPass.fields`), with `age_over_N` for each of `ageThresholds`: what `fields:` and
    /// templates may name, so that a misspelt name is a config error rather than a field never sent.
    public func fieldNames(ageThresholds: [Int]) -> [String] {
        switch self {
        case .id:
            [
                "document_type", "issuer", "issuer_country", "issuer_iin", "aamva_version", "jurisdiction_version", "family_name",
                "family_name_truncated", "given_name", "given_name_truncated", "middle_name", "middle_name_truncated", "suffix", "birth_date",
                "issue_date", "expiry_date", "sex", "customer_id", "street", "street_2", "city", "jurisdiction_code", "postal_code", "country",
                "age",
            ] + ageThresholds.map { "age_over_\($0)" } + ["expired"]
        case .boardingPass:
            [
                "format_code", "legs_count", "passenger_name", "passenger_family_name", "passenger_given_name", "electronic_ticket", "legs",
                "conditional", "security_data",
            ]
        }
    }

    /// The field names of a boarding pass's leg (`BoardingPass.Leg.fields`): each record of `legs`, and
    /// for a template, the first leg's.
    public static let legFieldNames = [
        "pnr", "from", "to", "carrier", "flight_number", "flight_date", "compartment", "seat", "check_in_sequence", "passenger_status",
        "conditional", "airline_private",
    ]
}

/// What consumers get of each kind of document (`id:` and `boarding_pass:` in the config).
public struct DocumentsConfig: Sendable, Hashable {
    /// The fields consumers get, and whether the raw data goes anywhere.
    public struct Policy: Sendable, Hashable {
        /// Field names, in any order; a name ending in `*` stands for every field it begins
        /// (`age_over_*`).
        public var fields: [String]
        /// Whether the raw `text` and `bytes` go to consumers, logs, recordings and MQTT.
        public var raw = false

        public init(fields: [String], raw: Bool = false) {
            self.fields = fields
            self.raw = raw
        }

        /// Whether `name` is one of `fields`.
        public func shows(_ name: String) -> Bool {
            fields.contains { $0.hasSuffix("*") ? name.hasPrefix($0.dropLast()) : $0 == name }
        }
    }

    /// Driver's licences and ID cards: by default only what an age or validity check needs.
    public var id = Policy(fields: ["issuer", "age_over_*", "expired"])
    /// Boarding passes: by default the name and the legs, which check-in needs.
    public var boardingPass = Policy(fields: ["passenger_name", "passenger_family_name", "passenger_given_name", "legs_count", "legs"])
    /// The ages `age_over_N` is given for.
    public var ageThresholds = [18, 21]
    /// Whether documents are parsed at all.
    public var enabled = true

    public init() {}

    public func policy(for kind: KioskDocument.Kind) -> Policy {
        kind == .id ? id : boardingPass
    }
}

/// A document's fields as a JSON object: `{"issuer": "...", "age_over_21": true, "legs": [{...}]}`.
public struct DocumentFields: Sendable, Hashable, Codable {
    public let fields: [DocumentField]

    public init(_ fields: [DocumentField]) { self.fields = fields }

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for field in fields {
            switch field.value {
            case .text(let text): try container.encode(text, forKey: Key(stringValue: field.name))
            case .number(let number): try container.encode(number, forKey: Key(stringValue: field.name))
            case .flag(let flag): try container.encode(flag, forKey: Key(stringValue: field.name))
            case .records(let records): try container.encode(records.map(DocumentFields.init), forKey: Key(stringValue: field.name))
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        fields = try container.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
            if let flag = try? container.decode(Bool.self, forKey: key) { return DocumentField(key.stringValue, .flag(flag)) }
            if let number = try? container.decode(Int.self, forKey: key) { return DocumentField(key.stringValue, .number(number)) }
            if let records = try? container.decode([DocumentFields].self, forKey: key) {
                return DocumentField(key.stringValue, .records(records.map(\.fields)))
            }
            return DocumentField(key.stringValue, .text(try container.decode(String.self, forKey: key)))
        }
    }

    /// `name=value` pairs, space-separated, as the socket's plain format shows a document whose raw
    /// data is withheld (legs as `legs=N`).
    public var summary: String {
        fields.map { field in
            switch field.value {
            case .text(let text): "\(field.name)=\(text)"
            case .number(let number): "\(field.name)=\(number)"
            case .flag(let flag): "\(field.name)=\(flag)"
            case .records(let records): "\(field.name)=\(records.count)"
            }
        }.joined(separator: " ")
    }
}

extension Read {
    /// Parses the read's data as a kiosk document when it looks like one, and applies `config`'s
    /// privacy: consumers get the chosen fields (`id`, `boarding_pass`), and unless `raw` is set the
    /// data itself leaves the read here, so that no consumer, log, recording or MQTT message can see
    /// it. `today` is the scanner's local date, for ages, expiry and flight dates.
    public mutating func readDocument(_ config: DocumentsConfig, today: CalendarDate) {
        guard config.enabled else { return }
        let data = [UInt8](bytes)
        if AAMVA.looksLikeDocument(data) {
            switch AAMVA.parse(data, today: today, ageThresholds: config.ageThresholds) {
            case .success(let parsed): document = KioskDocument(kind: .id, fields: parsed.fields)
            case .failure(let error):
                document = KioskDocument(kind: .id, fields: [])
                idError = error.message
            }
        } else if let text, [.pdf417, .aztec, .qr, .datamatrix].contains(symbologyID), BCBP.looksLikePass(text),
            case .success(let pass) = BCBP.parse(text, today: today)
        {
            document = KioskDocument(kind: .boardingPass, fields: pass.fields)
        }
        guard let document else { return }
        let policy = config.policy(for: document.kind)
        let shown = DocumentFields(document.fields.filter { policy.shows($0.name) })
        switch document.kind {
        case .id: id = shown
        case .boardingPass: boardingPass = shown
        }
        if !policy.raw {
            text = nil
            self.bytes = Data()
            rawWithheld = true
        }
    }
}

extension Read {
    /// The fields consumers get of a kiosk document, as `name=value` pairs; nil for other reads.
    public var documentSummary: String? { (id ?? boardingPass)?.summary }
}

extension CalendarDate {
    /// The local date now (the lane's day, by the machine's time zone).
    public static func today() -> CalendarDate {
        let (year, month, day) = LocalTime.today()
        return CalendarDate(year: year, month: month, day: day)
    }
}

/// A document's fields as one line for a wedge or serial port, in the manner of Zebra's DL parsing:
/// chosen fields in order, dates and sex as the host wants them, a separator between them and a
/// terminator after (the `id_template` rule action).
public struct DocumentTemplate: Sendable, Hashable {
    /// How sex is written.
    public enum SexFormat: String, Sendable, Hashable, CaseIterable {
        /// M, F, X.
        case letters = "M/F"
        /// 1, 2, 9, as the AAMVA standard codes it.
        case digits = "1/2"
    }

    /// Field names, in the order they are sent; a field the document lacks is sent empty.
    public var fields: [String]
    /// `YYYY`, `YY`, `MM` and `DD` stand for the date's parts; anything else is sent as written.
    public var dateFormat = "YYYY-MM-DD"
    public var sex = SexFormat.letters
    public var separator: [UInt8] = [0x09]
    public var terminator: [UInt8] = []

    public init(fields: [String]) { self.fields = fields }

    /// The line for `document`. Control characters in the document's values are dropped (they come
    /// from the code, and a wedge would type them); the separator and terminator are the config's.
    public func render(_ document: KioskDocument) -> [UInt8] {
        var line: [UInt8] = []
        for (index, name) in fields.enumerated() {
            if index > 0 { line += separator }
            line += value(name, of: document).unicodeScalars.filter { !ControlCharacters.isControl($0) }.flatMap { Array(String($0).utf8) }
        }
        return line + terminator
    }

    private func value(_ name: String, of document: KioskDocument) -> String {
        switch document.field(name) {
        case .text(let text)?:
            if name.hasSuffix("_date"), let date = CalendarDate(iso: text) { return date.formatted(dateFormat) }
            if name == "sex", sex == .digits { return ["M": "1", "F": "2", "X": "9"][text] ?? text }
            return text
        case .number(let number)?: return String(number)
        case .flag(let flag)?: return flag ? "Y" : "N"
        case .records(let records)?: return String(records.count)
        case nil: return ""
        }
    }
}
