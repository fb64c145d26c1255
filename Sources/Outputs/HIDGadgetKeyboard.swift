import FoundationEssentials
import Glibc
import ScannerCore
import SystemPackage

/// The board as the POS PC's USB keyboard, through the HID gadget's /dev/hidg0: 8-byte boot
/// keyboard reports (modifiers, reserved, six keys), an all-zero release after every key. Writes
/// never block: a host that stops polling makes the write time out with a clear error. The
/// host's LED report is read so that Caps Lock can be compensated.
// Used by its output's thread only.
final class HIDGadgetKeyboard: KeyboardDevice, @unchecked Sendable {
    private let path: String
    private let layout: KeyboardLayout
    private let capsLockCompensation: Bool
    private var file: FileDescriptor?
    /// The host's LED state (bit 1: Caps Lock), as last reported.
    private var leds: UInt8 = 0
    /// How long one report may wait for the host to poll.
    static let reportTimeoutMilliseconds: Int32 = 1000

    init(path: String, layout: KeyboardLayout, capsLockCompensation: Bool) {
        self.path = path
        self.layout = layout
        self.capsLockCompensation = capsLockCompensation
    }

    func open() throws(KeyboardError) {
        do {
            file = try FileDescriptor.open(path, .readWrite, options: [.nonBlocking, .closeOnExec])
        } catch {
            let reason = "\(error)"
            throw KeyboardError(
                kind: .unavailable,
                description: "cannot open \(path): \(reason) (is the HID gadget configured? see hardware.md; the daemon's user needs the input group)")
        }
    }

    func type(_ actions: [KeyAction], delay: Double) throws(KeyboardError) {
        var first = true
        for action in actions {
            readLEDs()
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
            for report in reports {
                do {
                    try write(report)
                } catch  where !first {
                    throw KeyboardError(kind: .stalledMidRead, description: error.description)
                }
                first = false
            }
            if delay > 0 { usleep(UInt32(delay * 1e6)) }
        }
    }

    private func write(_ report: [UInt8]) throws(KeyboardError) {
        guard let file else { throw KeyboardError(kind: .unavailable, description: "\(path) is not open") }
        var descriptor = pollfd(fd: file.rawValue, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&descriptor, 1, Self.reportTimeoutMilliseconds)
        guard ready > 0, descriptor.revents & Int16(POLLOUT) != 0 else {
            if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw KeyboardError(kind: .unavailable, description: "\(path) went away (gadget unbound?)")
            }
            throw KeyboardError(
                kind: .stalled,
                description:
                    "the USB host is not polling the keyboard (\(path) not writable for \(Self.reportTimeoutMilliseconds) ms): is the cable in a powered-on PC?"
            )
        }
        let written: Int
        do {
            written = try report.prefix(8).withUnsafeBytes { try file.write($0) }
        } catch Errno.wouldBlock {
            throw KeyboardError(kind: .stalled, description: "the USB host is not polling the keyboard (\(path) write would block)")
        } catch {
            throw KeyboardError(kind: .unavailable, description: "\(path): write failed: \(error)")
        }
        guard written == 8 else { throw KeyboardError(kind: .unavailable, description: "\(path): short write of \(written) bytes") }
    }

    /// Takes the newest LED output report, if the host sent one.
    private func readLEDs() {
        var byte: UInt8 = 0
        while let file, (try? withUnsafeMutableBytes(of: &byte) { try file.read(into: $0) }) == 1 { leds = byte }
    }

    func close() {
        try? file?.close()
        file = nil
    }
}
