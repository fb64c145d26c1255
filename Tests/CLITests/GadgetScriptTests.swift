import Foundation
import ScannerTestSupport
import Testing

/// `systemd/kiosk-scanner-gadget` writes the configfs tree of a HID boot keyboard and a CDC-ACM
/// port (here into a plain directory; the real-kernel rig binds it to dummy_hcd).
@Suite struct GadgetScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../systemd/kiosk-scanner-gadget").standardized.path

    @Test func startWritesAKeyboardAndASerialFunctionAndBindsTheController() throws {
        let configfs = try TemporaryDirectory.shared.directory("configfs")
        let result = try Tool.capture(Self.script, ["start"], environment: ["KS_GADGET_CONFIGFS": configfs, "KS_GADGET_UDC": "dummy_udc.0"])
        #expect(result.status == 0, "\(result.stderr)")
        let gadget = "\(configfs)/usb_gadget/kiosk-scanner"
        func read(_ file: String) -> String { (try? String(contentsOfFile: "\(gadget)/\(file)", encoding: .utf8)) ?? "" }
        #expect(read("idVendor") == "0x1d6b\n" && read("UDC") == "dummy_udc.0\n")
        #expect(read("functions/hid.usb0/protocol") == "1\n" && read("functions/hid.usb0/subclass") == "1\n")
        #expect(read("functions/hid.usb0/report_length") == "8\n")
        let descriptor = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(gadget)/functions/hid.usb0/report_desc")))
        // A boot keyboard: Generic Desktop / Keyboard application collection, 8-byte input, LED output.
        #expect(descriptor.count == 63)
        #expect(Array(descriptor.prefix(6)) == [0x05, 0x01, 0x09, 0x06, 0xA1, 0x01] && descriptor.last == 0xC0)
        #expect(FileManager.default.fileExists(atPath: "\(gadget)/configs/c.1/hid.usb0"))
        #expect(FileManager.default.fileExists(atPath: "\(gadget)/configs/c.1/acm.usb0"))

        let unknown = try Tool.capture(Self.script, ["start", "printer"], environment: ["KS_GADGET_CONFIGFS": configfs])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown function 'printer'"))
    }
}
