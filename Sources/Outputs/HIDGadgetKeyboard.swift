import FoundationEssentials
import Glibc
import Keyboard

/// The board as the POS PC's USB keyboard, through the HID gadget's /dev/hidg0: 8-byte boot
/// keyboard reports (modifiers, reserved, six keys), an all-zero release after every key. The
/// host's LED report is read so that Caps Lock can be compensated.
// Used by its output's thread only.
final class HIDGadgetKeyboard: KeyboardDevice {
    private let function: HIDGadgetFunction
    private let layout: KeyboardLayout
    private let capsLockCompensation: Bool
    /// The host's LED state (bit 1: Caps Lock), as last reported.
    private var leds: UInt8 = 0

    init(path: String, layout: KeyboardLayout, capsLockCompensation: Bool) {
        function = HIDGadgetFunction(path: path, role: "keyboard")
        self.layout = layout
        self.capsLockCompensation = capsLockCompensation
    }

    func open() throws(DeviceError) { try function.open() }

    func type(_ actions: [KeyAction], delay: Double) throws(DeviceError) {
        var first = true
        for action in actions {
            // The newest LED output report, if the host sent one.
            if let report = function.hostReports().last, let byte = report.first { leds = byte }
            let reports: [[UInt8]]
            switch action {
            case .stroke(let key, var modifiers):
                if capsLockCompensation && leds & 0x02 != 0 && layout.capsAffects(key) { modifiers.formSymmetricDifference(.shift) }
                reports = [[modifiers.rawValue, 0, key.usage, 0, 0, 0, 0, 0], [UInt8](repeating: 0, count: 8)]
            case .altCode(let keys):
                // Alt stays held between the keypad digits; all keys up at the end.
                let alt = Modifiers.alt.rawValue
                reports = keys.flatMap { [[alt, 0, $0.usage, 0, 0, 0, 0, 0], [alt, 0, 0, 0, 0, 0, 0, 0]] } + [[UInt8](repeating: 0, count: 8)]
            }
            try function.write(reports, partOfReadSent: !first)
            first = false
            if delay > 0 { usleep(UInt32(delay * 1e6)) }
        }
    }

    func close() { function.close() }
}
