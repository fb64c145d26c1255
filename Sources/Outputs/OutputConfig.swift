import Codes
import Keyboard

/// A serial port: the device and its line settings.
public struct SerialConfig: Sendable, Hashable {
    public enum Parity: String, Sendable, Hashable, CaseIterable { case none, even, odd }
    public enum Flow: String, Sendable, Hashable, CaseIterable {
        case none
        case rtsCts = "rts-cts"
        case xonXoff = "xon-xoff"
    }

    /// `/dev/ttyUSB0`, `/dev/serial/by-id/...`, or the board's own USB gadget port `/dev/ttyGS0`.
    public var device: String
    public var baud = 9600
    public var dataBits = 8
    public var parity = Parity.none
    public var stopBits = 1
    public var flow = Flow.none

    public init(device: String) { self.device = device }

    /// The baud rates termios knows.
    public static let bauds = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]
}

/// A keyboard wedge: typing reads into the board's own session (uinput) or into the POS PC, with
/// the board as its USB keyboard (the HID gadget).
public struct KeyboardConfig: Sendable, Hashable {
    public enum Backend: String, Sendable, Hashable, CaseIterable {
        case uinput
        case hidGadget = "hid-gadget"
    }

    public var backend: Backend
    /// `/dev/uinput`, or the gadget's `/dev/hidg0`.
    public var device: String
    /// The host's keyboard layout as xkeyboard-config names it: `us`, `de`, `ch(fr)`...
    public var layout = "us"
    public var missing = Typist.Missing.drop
    /// What GS (0x1D) types; nil leaves it out.
    public var groupSeparator: KeyChord? = KeyChord.groupSeparator
    /// Seconds between key strokes (some hosts drop keys typed faster).
    public var keyDelaySeconds = 0.004
    /// HID gadget: invert Shift for letters while the host's Caps Lock LED is on.
    public var capsLockCompensation = true

    public init(backend: Backend, device: String) {
        self.backend = backend
        self.device = device
    }
}

/// The board as a USB HID Point of Sale bar code scanner (the gadget's hid-pos function): each
/// read one or more Scanned Data Reports, with its AIM identifier (`HIDPOS`).
public struct HIDPOSConfig: Sendable, Hashable {
    /// The function's `/dev/hidgN`, as `kiosk-scanner-gadget start` prints it.
    public var device: String
    /// Whether the host's Trigger Report pauses (Prevent Read) and resumes (Initiate Read) scanning.
    public var hostControl = true

    public init(device: String) { self.device = device }
}

/// One output besides the socket, and how it frames reads.
public struct OutputConfig: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case serial(SerialConfig)
        case keyboard(KeyboardConfig)
        case hidPOS(HIDPOSConfig)
    }

    public var kind: Kind
    public var format: OutputFormat
    /// Reads waiting while the output is missing or busy: at most this many, for at most this long.
    public var holdCount = 64
    public var holdSeconds = 30.0

    public init(kind: Kind, format: OutputFormat) {
        self.kind = kind
        self.format = format
    }

    /// How logs and `status` name it.
    public var name: String {
        switch kind {
        case .serial(let serial): "serial \(serial.device)"
        case .keyboard(let keyboard): "keyboard \(keyboard.backend.rawValue) \(keyboard.device)"
        case .hidPOS(let pos): "hid-pos \(pos.device)"
        }
    }
}
