/// What the torch does: always off, always on, or on while scanning is active.
public enum TorchMode: String, Sendable, Hashable, CaseIterable, Codable {
    case off, on, auto
}

/// How scanning is started: continuously, or a session per trigger (button or `trigger` command).
public enum ReadMode: String, Sendable, Hashable, CaseIterable, Codable {
    case presentation, trigger
}
