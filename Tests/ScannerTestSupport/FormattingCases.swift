import Codes
import Testing

/// The GTIN options and rule actions checked both through `scan` and in the running daemon: one
/// table, so that both see the same cases.
public enum FormattingCases {
    /// A code drawn by zint, the `gtin:` key set, and the data then sent.
    public struct GTIN: Sendable, CustomTestStringConvertible {
        public let symbology: Symbology
        /// What zint draws (it adds the check digit).
        public let data: String
        /// The lines under `gtin:`.
        public let option: String
        public let expected: String

        public var testDescription: String { "\(symbology.rawValue) with \(option.replacingOccurrences(of: "\n", with: ", "))" }
    }

    public static let gtin: [GTIN] = [
        GTIN(symbology: .upca, data: "01234567890", option: "upca: 13", expected: "0012345678905"),
        GTIN(symbology: .upce, data: "0123456", option: "upce: 12", expected: "012345000065"),
        GTIN(symbology: .upce, data: "0123456", option: "upce: 13", expected: "0012345000065"),
        GTIN(symbology: .ean8, data: "9638507", option: "ean8: 13", expected: "0000096385074"),
        GTIN(symbology: .ean8, data: "9638507", option: "ean8: 14", expected: "00000096385074"),
        GTIN(symbology: .ean13, data: "400638133393", option: "check_digit: strip", expected: "400638133393"),
        GTIN(symbology: .upce, data: "0123456", option: "check_digit: strip\nupce: 12", expected: "01234500006"),
    ]

    /// A rule (YAML list item under `rules:`) applied to a Code 128 of `ruleSubject`, and what is sent (nil: nothing).
    public struct Rule: Sendable, CustomTestStringConvertible {
        public let rule: String
        /// The `unmatched:` key, when the case sets it.
        public var unmatched: String? = nil
        public let expected: String?

        public var testDescription: String { rule.replacingOccurrences(of: "\n", with: " ") + (unmatched.map { ", unmatched: \($0)" } ?? "") }

        /// The keys of a section (`socket:` or an output) holding this rule, indented by `spaces`.
        public func keys(indentedBy spaces: Int) -> String {
            let pad = String(repeating: " ", count: spaces)
            return pad + "rules:\n" + FormattingCases.indented(rule, by: spaces + 2) + (unmatched.map { "\n\(pad)unmatched: \($0)" } ?? "")
        }
    }

    public static let ruleSubject = "abc-1234"

    public static let rules: [Rule] = [
        Rule(rule: "- when: { symbology: code128 }\n  do: drop", expected: nil),
        Rule(rule: "- do: [strip_leading: 4]", expected: "1234"),
        Rule(rule: "- do: [strip_trailing: 5]", expected: "abc"),
        Rule(rule: "- do: [pad: 10]", expected: "00abc-1234"),
        Rule(rule: "- do: [pad: { length: 10, with: \"*\", side: right }]", expected: "abc-1234**"),
        Rule(rule: "- do: [replace: { pattern: \"([a-z]+)-([0-9]+)\", with: \"$2.$1\" }]", expected: "1234.abc"),
        Rule(rule: "- do: [prefix: \"P:\", suffix: \":S\"]", expected: "P:abc-1234:S"),
        Rule(rule: "- do: [upper]", expected: "ABC-1234"),
        Rule(rule: "- when: { length: [1, 5] }\n  do: [upper]", expected: "abc-1234"),
        Rule(rule: "- when: { prefix: \"abc\", regex: \"[0-9]{4}$\" }\n  do: [strip_leading: 4]", expected: "1234"),
        Rule(rule: "- when: { symbology: qr }\n  do: [upper]", unmatched: "drop", expected: nil),
        Rule(rule: "- when: { symbology: code128 }\n  do: send", unmatched: "drop", expected: "abc-1234"),
    ]

    /// `lines` indented by `spaces`, for placing a case under a YAML key.
    public static func indented(_ lines: String, by spaces: Int) -> String {
        lines.split(separator: "\n").map { String(repeating: " ", count: spaces) + $0 }.joined(separator: "\n")
    }
}
