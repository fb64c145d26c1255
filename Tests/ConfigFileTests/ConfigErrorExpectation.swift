import ConfigFile
import Testing

/// Expects `text` to fail to parse with an error at `line` on `key` whose reason contains
/// `reason`, written as `FILE:LINE: KEY: REASON`.
func expectConfigError(_ text: String, line: Int, key: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let error = #expect(throws: ConfigError.self, sourceLocation: sourceLocation) { try ConfigFile.parse(text, file: "/etc/k.conf") }
    #expect(error?.file == "/etc/k.conf", sourceLocation: sourceLocation)
    #expect(error?.line == line, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.key == key, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.reason.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.description.hasPrefix("/etc/k.conf:\(line): \(key): ") == true, sourceLocation: sourceLocation)
}
