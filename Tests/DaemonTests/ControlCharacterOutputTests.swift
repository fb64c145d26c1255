import Foundation
import ImageFiles
import ScannerCore
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue #33: a QR code full of control characters, read by the real daemon and sent through a
/// serial line (bytes checked), a uinput keyboard and a HID gadget keyboard (keys read back
/// through libxkbcommon on a `us` host), under each `control_characters` policy.
extension OutputTests {
    /// CR LF, a clear-screen and a window-title sequence, BEL, TAB, ETX, DEL, NUL, then GS.
    static let hostile = "AB\r\nCD\u{1B}[2J\u{1B}]0;pwn\u{07}\t\u{03}\u{7F}\u{00}Z\u{1D}9"

    enum Policy: String, CaseIterable {
        /// No `control_characters` key: the output's default.
        case unset, keep, drop, replace, caret, escape

        var yaml: String {
            switch self {
            case .unset: ""
            case .replace: ", control_characters: { replace: \"?\" }"
            default: ", control_characters: \(rawValue)"
            }
        }

        /// The data a data channel sends (`unset` is `keep` there).
        var serialData: String {
            switch self {
            case .unset, .keep: OutputTests.hostile
            case .drop: "ABCD[2J]0;pwnZ9"
            case .replace: "AB??CD?[2J?]0;pwn?????Z?9"
            case .caret: "AB^M^JCD^[[2J^[]0;pwn^G^I^C^?^@Z^]9"
            case .escape: #"AB\r\nCD\x1b[2J\x1b]0;pwn\a\t\x03\x7f\x00Z\x1d9"#
            }
        }

        /// What a `us` host reads from a keyboard wedge (`unset` is `drop` there), terminator
        /// included: under `keep`, CR LF is one Enter and TAB a Tab, and what no key types is left
        /// out; GS is Ctrl+] unless the policy rewrites it.
        var typed: String {
            switch self {
            case .keep: "AB\rCD[2J]0;pwn\tZ<ctrl-bracketright>9\r"
            case .unset, .drop: "ABCD[2J]0;pwnZ<ctrl-bracketright>9\r"
            default: serialData + "\r"
            }
        }
    }

    enum Wedge: String, CaseIterable { case uinput, hidGadget }

    /// Shows the hostile code; its text is no file name (NUL, `/`), so the frame is written here.
    func showHostile() throws {
        let frame = Barcodes.centred(try ImageFile.read(path: Barcodes.qr(bytes: Array(Self.hostile.utf8), moduleSize: 3)), in: Size(width: 640, height: 480))
        let path = directory + "/hostile-qr.pgm"
        try Barcodes.pgm(frame).write(to: URL(fileURLWithPath: path))
        try camera.plug(["background": "200", "frame": path])
    }

    /// Waits until the only output has finished sending one read (its write or typing returned),
    /// so that everything it sent can be read at once.
    func waitUntilSent(_ client: SocketClient) -> Bool {
        Fixtures.wait(seconds: 10) {
            let status = client.command("status")?["status"] as? [String: Any]
            return ((status?["outputs"] as? [[String: Any]])?.first?["sent"] as? Int) == 1
        }
    }

    @Test(arguments: Policy.allCases)
    func aSerialLineSendsTheDataAsThePolicySaysAndTheTerminatorAsItIs(policy: Policy) throws {
        let link = directory + "/ttyUSB-ctl-\(policy)"
        let line = try PseudoTerminal()
        try line.link(link)
        let daemon = try start(outputs: "  - { type: serial, device: \(link)\(policy.yaml) }\n")
        let client = try daemon.connect()
        try showHostile()
        #expect(client.waitForScan(Self.hostile).match != nil)
        #expect(waitUntilSent(client))
        let expected = Array(policy.serialData.utf8) + [0x0D, 0x0A]
        #expect(line.read(atLeast: expected.count) == expected)
        line.close()
    }

    @Test(arguments: Wedge.allCases, Policy.allCases)
    func aKeyboardWedgeTypesTheDataAsThePolicySays(wedge: Wedge, policy: Policy) throws {
        let device = directory + "/\(wedge)-ctl-\(policy)"
        var gadget: PseudoTerminal?
        let daemon: DaemonProcess
        switch wedge {
        case .uinput:
            daemon = try start(
                outputs: "  - { type: keyboard, backend: uinput, device: \(device), key_delay: 0\(policy.yaml) }\n",
                environment: [
                    "LD_PRELOAD": EmulatedCamera.library.replacingOccurrences(of: "libv4l2emu", with: "libuinputemu"), "KSUINPUT_DEVICE": device,
                ])
        case .hidGadget:
            gadget = try PseudoTerminal()
            try gadget?.link(device)
            daemon = try start(outputs: "  - { type: keyboard, backend: hid-gadget, device: \(device), key_delay: 0\(policy.yaml) }\n")
        }
        let client = try daemon.connect()
        try showHostile()
        #expect(client.waitForScan(Self.hostile).match != nil)
        #expect(waitUntilSent(client))
        let strokes: String
        if let gadget {
            // Every stroke a report and a release; Ctrl+] is one stroke, as is each other character.
            let count = policy.typed.replacingOccurrences(of: "<ctrl-bracketright>", with: "]").unicodeScalars.count
            strokes = HostKeyboard.strokes(bootReports: gadget.read(atLeast: count * 16))
            gadget.close()
        } else {
            strokes = HostKeyboard.strokes(uinputEvents: try Data(contentsOf: URL(fileURLWithPath: device + ".events")))
        }
        #expect(try HostKeyboard.typed([strokes], layout: "us").first == policy.typed, "strokes: \(strokes)")
    }
}
