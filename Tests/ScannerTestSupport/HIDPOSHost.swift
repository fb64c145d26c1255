import Foundation

/// The POS computer's side of the hid-pos output, as the tests see it: the report descriptor that
/// `systemd/kiosk-scanner-gadget` gives the function, read by hidposread (Tests/Tools/hidposread.c),
/// a parser written from the HID and HID POS specs rather than from our encoder.
public enum HIDPOSHost {
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
    public static let gadgetScript = repository + "/systemd/kiosk-scanner-gadget"
    public static let hidposread = repository + "/.build/tools/hidposread"

    /// The gadget's configfs tree after `kiosk-scanner-gadget start FUNCTIONS...` into a plain directory.
    public static func gadget(_ functions: [String]) throws -> (path: String, result: ToolResult) {
        let configfs = try TemporaryDirectory.shared.directory("configfs-\(UUID().uuidString.prefix(8))")
        let result = try Tool.capture(gadgetScript, ["start"] + functions, environment: ["KS_GADGET_CONFIGFS": configfs, "KS_GADGET_UDC": "dummy_udc.0"])
        return ("\(configfs)/usb_gadget/kiosk-scanner", result)
    }

    /// The hid-pos function's report descriptor file.
    public static func descriptor() throws -> String {
        try gadget(["hid-pos"]).path + "/functions/hid.pos/report_desc"
    }

    /// What a host makes of `reports` (input reports, report ID first): `aim=]Q1 hex=...` per code.
    public static func codes(in reports: [UInt8], descriptor: String) throws -> [String] {
        let input = try TemporaryDirectory.shared.file("reports-\(UUID().uuidString.prefix(8)).bin")
        try Data(reports).write(to: URL(fileURLWithPath: input))
        let result = try Tool.capture("/bin/sh", ["-c", "\"$0\" --descriptor \"$1\" --count 0 < \"$2\"", hidposread, descriptor, input])
        guard result.status == 0 else { throw Tool.Failure(description: "hidposread: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The Trigger Report a host sends for `request`: "prevent" or "initiate".
    public static func triggerReport(_ request: String, descriptor: String) throws -> [UInt8] {
        let result = try Tool.capture(hidposread, ["--descriptor", descriptor, "--send", request])
        guard result.status == 0 else { throw Tool.Failure(description: "hidposread: \(result.stderr)") }
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return stride(from: 0, to: text.count - 1, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }

    public static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
