// Why a text is not a readable IATA boarding pass, naming the resolution's field and where it starts.

/// Why `BCBP.parse` refused a text: the field (as Resolution 792 names it), its offset and what was wrong.
public struct BCBPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of fault.
    public enum Kind: Hashable, Sendable {
        /// The text does not start like a BCBP pass (format code `M`, one to four legs).
        case notBoardingPass
        /// The text ends inside the field.
        case truncated
        /// The field holds a value the resolution does not allow (a size that is not hexadecimal, day 367).
        case invalid
        /// A size field announces more characters than follow.
        case sizeExceedsData
        /// Characters are left where none may be.
        case unexpectedData
    }

    public let kind: Kind
    /// The resolution's name of the field, with the leg when it is a leg's ("field size of variable size field, leg 2").
    public let field: String
    /// Where the field starts, in Unicode scalars from the start of the text.
    public let offset: Int
    /// What was found.
    public let detail: String

    public init(_ kind: Kind, field: String, offset: Int, detail: String) {
        self.kind = kind
        self.field = field
        self.offset = offset
        self.detail = detail
    }

    public var description: String {
        let what =
            switch kind {
            case .notBoardingPass: "not an IATA boarding pass"
            case .truncated: "the pass ends inside"
            case .invalid: "invalid"
            case .sizeExceedsData: "size exceeds the data in"
            case .unexpectedData: "unexpected data after"
            }
        return "BCBP: \(what) \(field) at offset \(offset): \(detail)"
    }
}
