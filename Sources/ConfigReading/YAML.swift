import CYAML

/// A YAML document as the config reader needs it: mappings, sequences and scalars, each with the
/// line it starts on. Composed from libyaml's parser events; anchors and aliases are resolved.
package indirect enum YAMLNode {
    case scalar(YAMLScalar)
    case mapping([(key: YAMLNode, value: YAMLNode)], line: Int)
    case sequence([YAMLNode], line: Int)

    /// 1-based line where the node starts.
    package var line: Int {
        switch self {
        case .scalar(let scalar): scalar.line
        case .mapping(_, let line), .sequence(_, let line): line
        }
    }
}

package struct YAMLScalar {
    package let string: String
    /// Written without quotes or block indicators: only such a scalar is a number, a bool or null.
    package let isPlain: Bool
    package let line: Int

    /// YAML 1.1's null: empty, `~` or `null`, unquoted.
    package var isNull: Bool { isPlain && ["", "~", "null", "Null", "NULL"].contains(string) }
}

/// A document libyaml could not parse, with where it stopped.
package struct YAMLError: Error {
    package let line: Int?
    package let problem: String
}

package enum YAML {
    /// The document's root node, or nil for an empty document.
    package static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) != 0 else { throw YAMLError(line: nil, problem: "libyaml could not allocate a parser") }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(YAMLError) in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var composer = Composer()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) != 0 else {
                    let mark = parser.problem_mark
                    let problem = parser.problem.map { String(cString: $0) } ?? "unreadable"
                    let context = parser.context.map { " \(String(cString: $0))" } ?? ""
                    throw YAMLError(line: Int(mark.line) + 1, problem: problem + context)
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return composer.root }
                try composer.take(event)
            }
        }
    }

    /// Collections nested deeper than this are refused: a config file needs a handful of levels,
    /// and tens of thousands would exhaust the stack when the tree is released.
    static let maxDepth = 64

    /// Builds nodes from the event stream: a stack of open collections, each appended to in
    /// place, so that a long list or mapping loads in linear time.
    private struct Composer {
        private final class Open {
            let isMapping: Bool
            let line: Int
            let anchor: String?
            var entries: [(key: YAMLNode, value: YAMLNode)] = []
            var items: [YAMLNode] = []
            var pendingKey: YAMLNode?

            init(isMapping: Bool, line: Int, anchor: String?) {
                self.isMapping = isMapping
                self.line = line
                self.anchor = anchor
            }
        }

        private var stack: [Open] = []
        private var anchors: [String: YAMLNode] = [:]
        private(set) var root: YAMLNode?
        private var documents = 0

        mutating func take(_ event: yaml_event_t) throws(YAMLError) {
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                guard documents == 1 else { throw YAMLError(line: line, problem: "more than one document") }
            case YAML_SCALAR_EVENT:
                let data = event.data.scalar
                let string = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
                let node = YAMLNode.scalar(YAMLScalar(string: string, isPlain: data.style == YAML_PLAIN_SCALAR_STYLE, line: line))
                try add(node, anchor: Self.string(data.anchor), line: line)
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor) ?? ""
                guard let node = anchors[name] else { throw YAMLError(line: line, problem: "unknown alias *\(name)") }
                try add(node, anchor: nil, line: line)
            case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
                guard stack.count < YAML.maxDepth else {
                    throw YAMLError(line: line, problem: "nested more than \(YAML.maxDepth) levels deep")
                }
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                stack.append(Open(isMapping: isMapping, line: line, anchor: Self.string(anchor)))
            case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                let open = stack.removeLast()
                let node: YAMLNode = open.isMapping ? .mapping(open.entries, line: open.line) : .sequence(open.items, line: open.line)
                try add(node, anchor: open.anchor, line: line)
            default:
                break
            }
        }

        private mutating func add(_ node: YAMLNode, anchor: String?, line: Int) throws(YAMLError) {
            if let anchor { anchors[anchor] = node }
            guard let top = stack.last else {
                root = node
                return
            }
            if !top.isMapping {
                top.items.append(node)
            } else if let key = top.pendingKey {
                top.entries.append((key, node))
                top.pendingKey = nil
            } else {
                top.pendingKey = node
            }
        }

        private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: $0) }
        }
    }
}
