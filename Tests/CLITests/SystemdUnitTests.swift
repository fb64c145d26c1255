import Foundation
import ScannerTestSupport
import Testing

/// The shipped unit is one systemd accepts, and stays hardened.
@Suite struct SystemdUnitTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../systemd/kiosk-scanner.service").standardized.path

    @Test func systemdAnalyzeVerifiesTheUnit() throws {
        // Pointed at the built binary, since nothing is installed under /usr/bin here.
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/kiosk-scanner", with: Tool.scannerBinary)
        let directory = try TemporaryDirectory.shared.directory("units")
        let copy = "\(directory)/kiosk-scanner.service"
        let socket = "\(directory)/kiosk-scanner.socket"
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: Self.unit.replacingOccurrences(of: ".service", with: ".socket"), toPath: socket)
        let gadget = "\(directory)/kiosk-scanner-gadget.service"
        try String(contentsOfFile: Self.unit.replacingOccurrences(of: "kiosk-scanner.service", with: "kiosk-scanner-gadget.service"), encoding: .utf8)
            .replacingOccurrences(
                of: "/usr/lib/kiosk-scanner/kiosk-scanner-gadget",
                with: Self.unit.replacingOccurrences(of: "kiosk-scanner.service", with: "kiosk-scanner-gadget")
            )
            .write(toFile: gadget, atomically: true, encoding: .utf8)
        let bridge = "\(directory)/kiosk-scanner-mqtt.service"
        try String(contentsOfFile: Self.unit.replacingOccurrences(of: "kiosk-scanner.service", with: "kiosk-scanner-mqtt.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/kiosk-scanner", with: Tool.scannerBinary)
            .write(toFile: bridge, atomically: true, encoding: .utf8)
        let console = "\(directory)/kiosk-scanner-web.service"
        try String(contentsOfFile: Self.unit.replacingOccurrences(of: "kiosk-scanner.service", with: "kiosk-scanner-web.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/bin/kiosk-scanner", with: Tool.scannerBinary)
            .write(toFile: console, atomically: true, encoding: .utf8)
        let result = try Tool.capture("systemd-analyze", ["verify", copy, socket, gadget, bridge, console])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty, "warnings: \(result.stderr)")
    }

    @Test func exposureStaysLow() throws {
        let result = try Tool.capture("systemd-analyze", ["security", "--offline=yes", Self.unit])
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let figure = try #require(line.split(separator: " ").compactMap { Double($0) }.first)
        #expect(figure <= 1.0, "\(line)")
        // docs/operations.md states the figure as measured.
        let operations = try Markdown.text(of: "docs/operations.md")
        #expect(operations.contains("exposure at **\(String(format: "%.1f", figure)) (SAFE)**"), "docs/operations.md's figure differs from \(line)")
        for bound in ["MemoryMax=", "TasksMax=", "LimitNOFILE="] { #expect(text(Self.unit).contains(bound), "\(bound) in the unit") }
        #expect(text(Self.unit).contains("Type=notify") && text(Self.unit).contains("WatchdogSec="))
    }

    /// The bridge's unit runs with the scanner and is hardened too, though it needs the network,
    /// which the scanner's own unit still denies.
    @Test func theBridgeUnitIsBoundToTheScannerAndHardened() throws {
        let bridge = Self.unit.replacingOccurrences(of: "kiosk-scanner.service", with: "kiosk-scanner-mqtt.service")
        let result = try Tool.capture("systemd-analyze", ["security", "--offline=yes", bridge])
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let figure = try #require(line.split(separator: " ").compactMap { Double($0) }.first)
        #expect(figure <= 1.5, "\(line)")
        #expect(text(bridge).contains("BindsTo=kiosk-scanner.service") && text(bridge).contains("After=kiosk-scanner.service"))
        #expect(text(bridge).contains("StateDirectory=kiosk-scanner"), "the spool's home, /var/lib/kiosk-scanner")
        #expect(text(Self.unit).contains("PrivateNetwork=yes") && text(Self.unit).contains("RestrictAddressFamilies=AF_UNIX\n"))
    }

    /// The console's unit too: bound to the scanner, hardened, and with the network as all it adds.
    @Test func theConsoleUnitIsBoundToTheScannerAndHardened() throws {
        let console = Self.unit.replacingOccurrences(of: "kiosk-scanner.service", with: "kiosk-scanner-web.service")
        let result = try Tool.capture("systemd-analyze", ["security", "--offline=yes", console])
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let figure = try #require(line.split(separator: " ").compactMap { Double($0) }.first)
        #expect(figure <= 1.5, "\(line)")
        let page = Self.unit.replacingOccurrences(of: "systemd/kiosk-scanner.service", with: "docs/console.md")
        #expect(text(page).contains("exposure at\n**\(String(format: "%.1f", figure)) (OK)**"), "docs/console.md's figure differs from \(line)")
        #expect(text(console).contains("IPAddressDeny=any\nIPAddressAllow=localhost\n"), "loopback only, as web.listen's default")
        #expect(text(console).contains("BindsTo=kiosk-scanner.service") && text(console).contains("After=kiosk-scanner.service"))
        for setting in ["CapabilityBoundingSet=\n", "MemoryDenyWriteExecute=yes", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\n", "ProtectSystem=strict"]
        {
            #expect(text(console).contains(setting), "\(setting)")
        }
    }

    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}
