import FoundationEssentials

/// A JSON value of the daemon's replies and events, as the client commands read them (in place
/// of Foundation's JSONSerialization, which would link ICU into the binary for nothing).
enum JSON: Codable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The object in `bytes`, or nil when they are not a JSON object.
    static func object(parsing bytes: some Sequence<UInt8>) -> [String: JSON]? {
        try? JSONDecoder().decode([String: JSON].self, from: Data(bytes))
    }

    /// `value` as JSON text, keys sorted.
    static func text(_ value: some Encodable, pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var object: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
    var array: [JSON]? { if case .array(let value) = self { value } else { nil } }

    var int: Int? {
        switch self {
        case .int(let value): Int(exactly: value)
        case .unsigned(let value): Int(exactly: value)
        default: nil
        }
    }

    var uint64: UInt64? {
        switch self {
        case .int(let value): UInt64(exactly: value)
        case .unsigned(let value): value
        default: nil
        }
    }

    /// Any number, as a Double.
    var double: Double? {
        switch self {
        case .int(let value): Double(value)
        case .unsigned(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
