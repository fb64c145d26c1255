// The value type both document parsers share.

/// One named value of a parsed document, as consumers, templates and privacy settings name it.
public struct DocumentField: Hashable, Sendable {
    /// What a field holds.
    public enum Value: Hashable, Sendable {
        case text(String)
        case number(Int)
        case flag(Bool)
        /// Repeated groups, such as a boarding pass's legs.
        case records([[DocumentField]])
    }

    /// snake_case, stable: the socket's JSON key, and the name `fields:` and templates use.
    public let name: String
    public let value: Value

    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }
}
