import Codes
import ConfigReading
import Documents
import Outputs

/// The formatting keys of an output or of the socket: `gtin`, `rules` and `unmatched`. `documents`
/// gives the ages whose `age_over_N` an `id_template` may name.
extension ConfigFile {
    static func readFormatting(_ section: inout Section, into formatting: inout Formatting, documents: DocumentsConfig) throws(ConfigError) {
        var gtin = try section.section("gtin")
        if let value = gtin.value("upca") { formatting.gtin.upca = try value.choice(GTINOptions.UPCA.self) }
        if let value = gtin.value("upce") { formatting.gtin.upce = try value.choice(GTINOptions.UPCE.self) }
        if let value = gtin.value("ean8") { formatting.gtin.ean8 = try value.choice(GTINOptions.EAN8.self) }
        if let value = gtin.value("check_digit") {
            let text = try value.string()
            guard text == "keep" || text == "strip" else { throw value.error("'\(text)' is not one of keep, strip") }
            formatting.gtin.checkDigit = text == "keep"
        }
        if let value = gtin.value("digital_link") { formatting.gtin.digitalLink = try value.choice(GTINOptions.DigitalLink.self) }
        try gtin.finish()
        if let value = section.value("rules") {
            formatting.rules = []
            for item in try value.optionalItems() { formatting.rules.append(try rule(item, documents: documents)) }
        }
        if let value = section.value("unmatched") { formatting.unmatched = try value.choice(Formatting.Unmatched.self) }
    }

    /// One rule: `when` (criteria, all must hold; absent matches every code) and `do` (actions, in order).
    private static func rule(_ value: Value, documents: DocumentsConfig) throws(ConfigError) -> FormatRule {
        var section = try Section(node: value.node, file: value.file, path: value.key, line: value.line)
        var when = try section.section("when")
        let criteria = try self.criteria(&when)
        try when.finish()
        guard let actionsValue = section.value("do") else { throw section.error("a rule needs do: a list of actions (e.g. [drop])") }
        try section.finish()
        var actions: [FormatRule.Action] = []
        // One action may stand alone: `do: drop`.
        let items: [Value]
        if case .scalar = actionsValue.node { items = [actionsValue] } else { items = try actionsValue.items() }
        for item in items {
            // `send` sends the code as it is: a rule that only selects (with `unmatched: drop`).
            if case .scalar(let scalar) = item.node, scalar.string == "send" { continue }
            let action = try self.action(item, document: criteria.document, documents: documents)
            if case .takeAI(let ai) = action, criteria.ai != ai {
                throw item.error("take_ai: '\(ai)' needs when: {ai: '\(ai)'}, so that the rule only acts on codes that carry it")
            }
            actions.append(action)
        }
        guard !items.isEmpty else { throw actionsValue.error("a rule needs at least one action (send: as it is)") }
        return FormatRule(criteria: criteria, actions: actions)
    }

    private static func criteria(_ section: inout Section) throws(ConfigError) -> FormatRule.Criteria {
        var criteria = FormatRule.Criteria()
        if let value = section.value("symbology") {
            var chosen: Set<Symbology> = []
            if case .scalar = value.node {
                chosen.insert(try symbology(value))
            } else {
                for item in try value.items() { chosen.insert(try symbology(item)) }
            }
            guard !chosen.isEmpty else { throw value.error("name at least one symbology") }
            criteria.symbologies = chosen
        }
        if let value = section.value("length") {
            if case .scalar = value.node {
                let length = try value.int(in: 0...8192)
                (criteria.minLength, criteria.maxLength) = (length, length)
            } else {
                let bounds = try value.items()
                guard bounds.count == 2 else { throw value.error("expected a length or [min, max]") }
                let (low, high) = (try bounds[0].int(in: 0...8192), try bounds[1].int(in: 0...8192))
                guard low <= high else { throw value.error("min \(low) is above max \(high)") }
                (criteria.minLength, criteria.maxLength) = (low, high)
            }
        }
        if let value = section.value("prefix") { criteria.prefix = String(decoding: try escaped(value), as: UTF8.self) }
        if let value = section.value("regex") { criteria.pattern = try pattern(value) }
        if let value = section.value("ai") { criteria.ai = try ai(value) }
        if let value = section.value("document") { criteria.document = try value.choice(KioskDocument.Kind.self) }
        return criteria
    }

    private static let actionNames = "drop, send, upper, strip_leading, strip_trailing, pad, replace, take_ai, prefix, suffix, id_template"

    /// One action; `document` is the kind of document the rule's `when` names, for `id_template`.
    private static func action(_ value: Value, document: KioskDocument.Kind?, documents: DocumentsConfig) throws(ConfigError) -> FormatRule.Action {
        if case .scalar = value.node {
            switch try value.string() {
            case "drop": return .drop
            case "upper": return .upperCase
            case let other: throw value.error("'\(other)' is not an action without a value (drop, send, upper); others take one, e.g. strip_leading: 1")
            }
        }
        var section = try Section(node: value.node, file: value.file, path: value.key, line: value.line)
        let keys = section.allKeys()
        guard keys.count == 1, let name = keys.first, let argument = section.value(name) else {
            throw value.error("an action is one key and its value, e.g. strip_leading: 1 (actions: \(actionNames))")
        }
        switch name {
        case "strip_leading": return .stripLeading(try argument.int(in: 0...8192))
        case "strip_trailing": return .stripTrailing(try argument.int(in: 0...8192))
        case "pad": return try pad(argument)
        case "replace":
            var replace = try Section(node: argument.node, file: argument.file, path: argument.key, line: argument.line)
            guard let pattern = replace.value("pattern") else { throw replace.error("replace needs pattern: REGEX and with: TEXT") }
            let with = try replace.value("with").map { value throws(ConfigError) in String(decoding: try escaped(value), as: UTF8.self) } ?? ""
            try replace.finish()
            return .replace(pattern: try self.pattern(pattern), with: with)
        case "take_ai": return .takeAI(try ai(argument))
        case "prefix": return .prefix(try escaped(argument))
        case "suffix": return .suffix(try escaped(argument))
        case "id_template": return .template(try template(argument, document: document, ageThresholds: documents.ageThresholds))
        case "drop", "send", "upper": throw argument.error("\(name) takes no value: write it as - \(name)")
        default: throw argument.error("unknown action (actions: \(actionNames))")
        }
    }

    /// `pad: 13` (zeros on the left), or `pad: {length: 13, with: " ", side: right}`.
    private static func pad(_ value: Value) throws(ConfigError) -> FormatRule.Action {
        if case .scalar = value.node { return .pad(length: try value.int(in: 1...8192), with: "0", left: true) }
        var section = try Section(node: value.node, file: value.file, path: value.key, line: value.line)
        guard let length = section.value("length") else { throw section.error("pad needs length (and may take with: CHARACTER, side: left or right)") }
        var scalar: Unicode.Scalar = "0"
        if let with = section.value("with") {
            let scalars = Array(try with.string().unicodeScalars)
            guard scalars.count == 1 else { throw with.error("expected one character") }
            scalar = scalars[0]
        }
        var left = true
        if let side = section.value("side") {
            let text = try side.string()
            guard text == "left" || text == "right" else { throw side.error("'\(text)' is not one of left, right") }
            left = text == "left"
        }
        try section.finish()
        return .pad(length: try length.int(in: 1...8192), with: scalar, left: left)
    }

    /// A regex compiled here, once, so that a pattern RE2 refuses is an error in the file.
    private static func pattern(_ value: Value) throws(ConfigError) -> RE2Pattern {
        let text = try value.string()
        do {
            return try RE2Pattern(text)
        } catch {
            throw value.error("not a regular expression RE2 accepts: \(error)")
        }
    }

    private static func ai(_ value: Value) throws(ConfigError) -> String {
        let text = try value.string()
        guard GS1.isKnown(ai: text) else { throw value.error("'\(text)' is not a GS1 application identifier (quote it: '01')") }
        return text
    }
}
