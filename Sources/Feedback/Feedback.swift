/// What the scanner shows and sounds: the torch, and good-read or error signals.
/// The GPIO implementation drives LEDs and a buzzer; without GPIO nothing is driven.
public protocol Feedback: Sendable {
    /// Switches the torch; called only when its state changes.
    func setTorch(_ on: Bool)
    /// A read was delivered: beep and flash.
    func goodRead()
    /// The camera was lost.
    func error()
    /// A read is held: nobody consumes scans now.
    func held()
    /// A read will never be delivered.
    func dropped()
    /// A consumer refused a read (`nak`); `name` is the pattern it asked for, if any.
    func rejected(_ name: String?)
    /// The `beep` socket command.
    func beep()
}

/// Feedback for a board with no GPIO configured: nothing to drive.
public struct NoFeedback: Feedback {
    public init() {}
    public func setTorch(_ on: Bool) {}
    public func goodRead() {}
    public func error() {}
    public func held() {}
    public func dropped() {}
    public func rejected(_ name: String?) {}
    public func beep() {}
}
