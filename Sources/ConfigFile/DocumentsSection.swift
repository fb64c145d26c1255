import Codes
import ConfigReading
import Documents
import Outputs

/// The kiosk-document keys (docs/documents.md): `documents` (whether codes are parsed as documents at
/// all), `id` and `boarding_pass` (which fields consumers get, and whether the raw data goes anywhere),
/// and the `id_template` rule action, whose field names are checked against what the parser can give.
extension ConfigFile {
    static func readDocuments(_ top: inout Section, into documents: inout DocumentsConfig) throws(ConfigError) {
        if let value = top.value("documents") { documents.enabled = try value.bool() }
        var id = try top.section("id")
        // Read first: the thresholds decide which age_over_N names the fields may use.
        if let value = id.value("age_thresholds") { documents.ageThresholds = try ageThresholds(value) }
        try readPolicy(&id, of: .id, ageThresholds: documents.ageThresholds, into: &documents.id)
        try id.finish()
        var boardingPass = try top.section("boarding_pass")
        try readPolicy(&boardingPass, of: .boardingPass, ageThresholds: [], into: &documents.boardingPass)
        try boardingPass.finish()
    }

    private static func ageThresholds(_ value: Value) throws(ConfigError) -> [Int] {
        var ages: [Int] = []
        for item in try value.optionalItems() {
            let age = try item.int(in: 1...150)
            // Each one becomes a JSON key: twice would be the same key twice.
            guard !ages.contains(age) else { throw item.error("\(age) is given twice") }
            ages.append(age)
        }
        guard !ages.isEmpty else { throw value.error("give at least one age, e.g. [18, 21]") }
        return ages
    }

    private static func readPolicy(
        _ section: inout Section, of kind: KioskDocument.Kind, ageThresholds: [Int], into policy: inout DocumentsConfig.Policy
    ) throws(ConfigError) {
        if let value = section.value("fields") {
            let names = kind.fieldNames(ageThresholds: ageThresholds)
            var fields: [String] = []
            for item in try value.optionalItems() {
                let name = try item.string()
                if name.hasSuffix("*") {
                    guard names.contains(where: { $0.hasPrefix(name.dropLast()) }) else {
                        throw item.error("'\(name)' stands for no field of \(kind.described) (fields: \(names.joined(separator: ", ")))")
                    }
                } else if !names.contains(name) {
                    throw item.error(unknownField(name, kind: kind, names: names, ageThresholds: ageThresholds))
                }
                fields.append(name)
            }
            policy.fields = fields
        }
        if let value = section.value("raw") { policy.raw = try value.bool() }
    }

    /// Why `name` is no field of `kind`, and what is.
    private static func unknownField(_ name: String, kind: KioskDocument.Kind?, names: [String], ageThresholds: [Int]) -> String {
        if kind != .boardingPass, name.hasPrefix("age_over_"), Int(name.dropFirst("age_over_".count)) != nil {
            return "\(name) needs its age in id.age_thresholds (now \(ageThresholds.map(String.init).joined(separator: ", ")))"
        }
        if kind == .boardingPass, KioskDocument.Kind.legFieldNames.contains(name) {
            return "'\(name)' is a field of each leg: name legs to get every leg's fields"
        }
        let described = kind?.described ?? "a licence, ID card or boarding pass"
        return "'\(name)' is not a field of \(described) (fields: \(names.joined(separator: ", ")))"
    }

    /// `id_template: {fields: [...], date_format: "MM/DD/YYYY", sex: "M/F", separator: "\t", terminator: ""}`.
    /// Its fields are checked against the document the rule's `when` names, or against both kinds.
    static func template(_ value: Value, document: KioskDocument.Kind?, ageThresholds: [Int]) throws(ConfigError) -> DocumentTemplate {
        var section = try Section(node: value.node, file: value.file, path: value.key, line: value.line)
        guard let fieldsValue = section.value("fields") else {
            throw section.error("id_template needs fields: the field names in the order they are sent")
        }
        let names = templateFieldNames(document, ageThresholds: ageThresholds)
        var fields: [String] = []
        for item in try fieldsValue.optionalItems() {
            let name = try item.string()
            guard !name.hasSuffix("*") else { throw item.error("a template sends single fields, in order: name each one ('*' is for id.fields)") }
            guard names.contains(name) else { throw item.error(unknownField(name, kind: document, names: names, ageThresholds: ageThresholds)) }
            fields.append(name)
        }
        guard !fields.isEmpty else { throw fieldsValue.error("name at least one field") }
        var template = DocumentTemplate(fields: fields)
        if let value = section.value("date_format") {
            let format = try value.string()
            guard ["YY", "MM", "DD"].contains(where: { format.contains($0) }) else {
                throw value.error("'\(format)' holds none of YYYY, YY, MM, DD (e.g. MM/DD/YYYY)")
            }
            template.dateFormat = format
        }
        if let value = section.value("sex") { template.sex = try value.choice(DocumentTemplate.SexFormat.self) }
        if let value = section.value("separator") { template.separator = try escaped(value) }
        if let value = section.value("terminator") { template.terminator = try escaped(value) }
        try section.finish()
        return template
    }

    /// What a template may name: a boarding pass's fields include its first leg's.
    private static func templateFieldNames(_ document: KioskDocument.Kind?, ageThresholds: [Int]) -> [String] {
        let id = KioskDocument.Kind.id.fieldNames(ageThresholds: ageThresholds)
        let pass = KioskDocument.Kind.boardingPass.fieldNames(ageThresholds: []) + KioskDocument.Kind.legFieldNames.filter { $0 != "conditional" }
        switch document {
        case .id?: return id
        case .boardingPass?: return pass
        case nil: return id + pass
        }
    }
}

extension KioskDocument.Kind {
    /// The kind as an error message names it.
    fileprivate var described: String {
        switch self {
        case .id: "a driver's licence or ID card"
        case .boardingPass: "a boarding pass"
        }
    }
}
