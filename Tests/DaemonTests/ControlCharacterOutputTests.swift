import Codes
import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue #33: a QR code full of control characters (`HostileCode`), read by the real daemon and
/// sent through a serial line (bytes checked), a uinput keyboard and a HID gadget keyboard (keys
/// read back through libxkbcommon on a `us` host, then Enter), under each `control_characters` policy.
extension OutputTests {
    typealias Policy = HostileCode.Policy

    enum Wedge: String, CaseIterable { case uinput, hidGadget }

    /// Shows the hostile code; its text is no file name (NUL, `/`), so the frame is drawn here.
    func showHostile() throws {
        let frame = Barcodes.centred(
            try ImageFile.read(path: Barcodes.qr(bytes: Array(HostileCode.text.utf8), moduleSize: 3)), in: Size(width: 640, height: 480))
        try bench.show(frame, with: ["background": "200"])
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
        let link = bench.directory + "/ttyUSB-ctl-\(policy)"
        let line = try PseudoTerminal()
        try line.link(link)
        let daemon = try start(outputs: "  - { type: serial, device: \(link)\(policy.yaml) }\n")
        let client = try daemon.connect()
        try showHostile()
        #expect(client.waitForScan(HostileCode.text).match != nil)
        #expect(waitUntilSent(client))
        let expected = Array(policy.serialData.utf8) + [0x0D, 0x0A]
        #expect(line.read(atLeast: expected.count) == expected)
        line.close()
    }

    @Test(arguments: Wedge.allCases, Policy.allCases)
    func aKeyboardWedgeTypesTheDataAsThePolicySays(wedge: Wedge, policy: Policy) throws {
        let device = bench.directory + "/\(wedge)-ctl-\(policy)"
        var gadget: PseudoTerminal?
        let daemon: DaemonProcess
        switch wedge {
        case .uinput:
            daemon = try start(
                outputs: "  - { type: keyboard, backend: uinput, device: \(device), key_delay: 0\(policy.yaml) }\n",
                environment: Self.uinput(device: device))
        case .hidGadget:
            gadget = try PseudoTerminal()
            try gadget?.link(device)
            daemon = try start(outputs: "  - { type: keyboard, backend: hid-gadget, device: \(device), key_delay: 0\(policy.yaml) }\n")
        }
        let client = try daemon.connect()
        try showHostile()
        #expect(client.waitForScan(HostileCode.text).match != nil)
        #expect(waitUntilSent(client))
        // The data as the policy says, then the terminator: Enter, whatever the policy.
        let expected = policy.typed + "\r"
        let strokes: String
        if let gadget {
            // Every stroke a report and a release; Ctrl+] is one stroke, as is each other character.
            let count = expected.replacingOccurrences(of: "<ctrl-bracketright>", with: "]").unicodeScalars.count
            strokes = HostKeyboard.strokes(bootReports: gadget.read(atLeast: count * 16))
            gadget.close()
        } else {
            strokes = HostKeyboard.strokes(uinputEvents: try Data(contentsOf: URL(fileURLWithPath: device + ".events")))
        }
        #expect(try HostKeyboard.typed([strokes], layout: "us").first == expected, "strokes: \(strokes)")
    }
}
