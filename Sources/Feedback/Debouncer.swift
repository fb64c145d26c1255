/// Turns a button's edge events (with their kernel timestamps) into presses, ignoring contact bounce.
///
/// An edge within `window` of the last accepted one is bounce. Because bounce can hide the final
/// level, the caller reads the line once the window has passed and hands the level to `settle`.
public struct Debouncer: Sendable {
    public let window: UInt64
    public private(set) var pressed = false
    /// Whether an edge was accepted and the level has not been read since.
    public private(set) var needsSettle = false
    private var lastAccepted: UInt64?

    /// `window` in nanoseconds.
    public init(window: UInt64) { self.window = window }

    /// Takes an edge (true: to active) at `time`; true when it is a new press.
    public mutating func edge(active: Bool, at time: UInt64) -> Bool {
        if let last = lastAccepted, time < last + window { return false }
        guard active != pressed else { return false }
        pressed = active
        lastAccepted = time
        needsSettle = true
        return active
    }

    /// Takes the line's level read after the window; true when it reveals a press that bounce hid.
    public mutating func settle(active: Bool) -> Bool {
        needsSettle = false
        guard active != pressed else { return false }
        pressed = active
        return active
    }
}
