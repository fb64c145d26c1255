/// One mapping of the config file, read key by key; a key nobody asked for is an error.
package struct Section {
    package let file: String
    package let path: String
    package let line: Int?
    private let entries: [(key: String, keyLine: Int, value: YAMLNode)]
    /// Where each key stands in `entries`: lookups and the duplicate check stay linear overall.
    private let positions: [String: Int]
    private var taken: Set<String> = []

    package init(node: YAMLNode?, file: String, path: String, line: Int?) throws(ConfigError) {
        self.file = file
        self.path = path
        self.line = node?.line ?? line
        guard let node else {
            self.entries = []
            self.positions = [:]
            return
        }
        if case .scalar(let scalar) = node, scalar.isNull {
            self.entries = []
            self.positions = [:]
            return
        }
        guard case .mapping(let mapping, _) = node else {
            throw ConfigError(file: file, line: node.line, key: path.isEmpty ? nil : path, reason: "expected a mapping of keys")
        }
        var entries: [(key: String, keyLine: Int, value: YAMLNode)] = []
        var positions: [String: Int] = [:]
        for (key, value) in mapping {
            guard case .scalar(let name) = key else {
                throw ConfigError(file: file, line: key.line, key: path.isEmpty ? nil : path, reason: "keys must be plain words")
            }
            if let first = positions[name.string] {
                throw ConfigError(
                    file: file, line: name.line, key: Self.qualified(name.string, in: path), reason: "key given twice (first on line \(entries[first].keyLine))"
                )
            }
            positions[name.string] = entries.count
            entries.append((name.string, name.line, value))
        }
        self.entries = entries
        self.positions = positions
    }

    /// Whether the file gives the section no keys (absent, empty or null).
    package var isEmpty: Bool { entries.isEmpty }

    /// The full dotted name of `key` in this section.
    package func qualified(_ key: String) -> String { Self.qualified(key, in: path) }

    /// `key` under the section at `path` ("" for the top level).
    package static func qualified(_ key: String, in path: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Every key of the section, in file order; marks them all as known.
    package mutating func allKeys() -> [String] {
        let keys = entries.map(\.key)
        taken.formUnion(keys)
        return keys
    }

    /// The value under `key`, or nil when the file does not set it. Marks the key as known.
    package mutating func value(_ key: String) -> Value? {
        taken.insert(key)
        guard let position = positions[key] else { return nil }
        let entry = entries[position]
        return Value(node: entry.value, file: file, key: qualified(key), line: entry.value.line)
    }

    /// The section under `key` (empty when absent).
    package mutating func section(_ key: String) throws(ConfigError) -> Section {
        let value = value(key)
        return try Section(node: value?.node, file: file, path: qualified(key), line: value?.line ?? line)
    }

    /// Fails on the first key that no reader asked for.
    package func finish(known: [String]? = nil) throws(ConfigError) {
        if let unknown = entries.first(where: { !taken.contains($0.key) }) {
            let choices = (known ?? taken.sorted()).joined(separator: ", ")
            throw ConfigError(file: file, line: unknown.keyLine, key: qualified(unknown.key), reason: "unknown key (known here: \(choices))")
        }
    }

    /// An error about this section as a whole.
    package func error(_ reason: String) -> ConfigError {
        ConfigError(file: file, line: line, key: path.isEmpty ? nil : path, reason: reason)
    }
}

/// One value of the config file with where it stands, for typed reading and precise errors.
package struct Value {
    package let node: YAMLNode
    package let file: String
    package let key: String
    package let line: Int?

    package func error(_ reason: String) -> ConfigError {
        ConfigError(file: file, line: line, key: key, reason: reason)
    }

    package func string() throws(ConfigError) -> String {
        guard case .scalar(let scalar) = node else { throw error("expected a string") }
        return scalar.string
    }

    package func int(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard case .scalar(let scalar) = node, scalar.isPlain, let value = Int(scalar.string) else {
            throw error("expected a whole number")
        }
        guard range.contains(value) else { throw error("\(value) is out of range \(range.lowerBound)...\(range.upperBound)") }
        return value
    }

    package func double(in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard case .scalar(let scalar) = node, scalar.isPlain, let value = Double(scalar.string), value.isFinite else {
            throw error("expected a number")
        }
        guard range.contains(value) else { throw error("\(value) is out of range \(range.lowerBound)...\(range.upperBound)") }
        return value
    }

    package func bool() throws(ConfigError) -> Bool {
        guard case .scalar(let scalar) = node, scalar.isPlain, let value = ["true": true, "false": false][scalar.string] else {
            throw error("expected true or false")
        }
        return value
    }

    package func choice<T: RawRepresentable & CaseIterable>(_: T.Type) throws(ConfigError) -> T where T.RawValue == String {
        let text = try string()
        guard let value = T(rawValue: text) else {
            throw error("'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// The items of a list that may be left empty: none for null or `[]`.
    package func optionalItems() throws(ConfigError) -> [Value] {
        if case .scalar(let scalar) = node, scalar.isNull || scalar.string == "[]" { return [] }
        return try items()
    }

    /// A node_exporter textfile path: nil for "", else an absolute path ending in .prom.
    package func textfilePath() throws(ConfigError) -> String? {
        let path = try string()
        guard path.isEmpty || (path.hasPrefix("/") && path.hasSuffix(".prom")) else {
            throw error("must be \"\" or an absolute path ending in .prom (node_exporter reads only *.prom)")
        }
        return path.isEmpty ? nil : path
    }

    /// The items of a sequence, each with its own line.
    package func items() throws(ConfigError) -> [Value] {
        guard case .sequence(let sequence, _) = node else { throw error("expected a list") }
        return sequence.enumerated().map { index, item in
            Value(node: item, file: file, key: "\(key)[\(index)]", line: item.line)
        }
    }

    /// An absolute path.
    package func absolutePath() throws(ConfigError) -> String {
        let path = try string()
        guard path.hasPrefix("/") else { throw error("must be an absolute path") }
        return path
    }

    /// The daemon's socket: an absolute path that fits a UNIX socket address.
    package func socketPath() throws(ConfigError) -> String {
        let path = try string()
        guard path.hasPrefix("/"), path.utf8.count < 108 else { throw error("must be an absolute path shorter than 108 bytes") }
        return path
    }
}
