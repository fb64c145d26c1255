/// A config file problem, naming the file, the line and the key, as `FILE:LINE: KEY: REASON`.
public struct ConfigError: Error, Hashable, CustomStringConvertible {
    public let file: String
    /// 1-based line of the offending key or value, or nil when the file could not be read at all.
    public let line: Int?
    /// The dotted key path, e.g. `camera.fps`, or nil for the file as a whole.
    public let key: String?
    public let reason: String

    public init(file: String, line: Int?, key: String?, reason: String) {
        self.file = file
        self.line = line
        self.key = key
        self.reason = reason
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(key): " }
        return text + reason
    }
}
