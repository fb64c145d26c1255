import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// One read per pack, the GTIN options and the formatting rules in the running daemon: on the
/// socket (JSON and plain), and typed by the serial and keyboard outputs.
@Suite(.serialized) struct PackFormattingTests {
    let bench: CameraBench

    init() throws { bench = try CameraBench("pack") }

    func show(_ frame: Frame) throws { try bench.show(frame, with: ["background": "200"]) }

    func showQR(_ text: String) throws { try bench.show(text, with: ["background": "200"]) }

    func start(_ extra: String) throws -> DaemonProcess {
        try bench.camera.plug(["background": "200"])
        return try bench.start(extra: "viewport:\n  rect: [0, 0, 1, 1]\n" + extra)
    }

    static let link = "https://id.gs1.org/01/09506000134352/10/ABC123?17=271231"
    static let elementString = "0109506000134352" + "10ABC123\u{1D}" + "17271231"

    /// An EAN-13 and a Digital Link QR code of the same GTIN, side by side.
    static func packFrame() throws -> Frame {
        let images = [try ImageFile.read(path: Barcodes.zint(.ean13, "9506000134352")), try ImageFile.read(path: Barcodes.qr(link, moduleSize: 3))]
        return Barcodes.sideBySide(images, in: Size(width: 640, height: 480))
    }

    static func centred(_ path: String) throws -> Frame {
        Barcodes.centred(try ImageFile.read(path: path), in: Size(width: 640, height: 480))
    }

    /// Boot-keyboard reports of digits typed on a US layout, then Enter.
    static func typed(digits: String) -> [UInt8] {
        let usages = digits.map { $0 == "0" ? UInt8(0x27) : UInt8(0x1D + $0.wholeNumberValue!) } + [0x28]
        return usages.flatMap { [0, 0, $0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8) }
    }

    @Test func aPackIsOneReadAndEachOutputSendsItsOwnFormatting() throws {
        let serialLink = bench.directory + "/ttyS-pack"
        let serial = try PseudoTerminal()
        try serial.link(serialLink)
        let hidLink = bench.directory + "/hidg-pack"
        let gadget = try PseudoTerminal()
        try gadget.link(hidLink)
        let daemon = try start(
            """
            socket:
              gtin:
                digital_link: element-string
              rules:
                - when: { symbology: qr, prefix: "drop me" }
                  do: drop
            outputs:
              - type: serial
                device: \(serialLink)
                terminator: crlf
                gtin:
                  digital_link: element-string
                  upce: 12
                rules:
                  - when: { symbology: qr, regex: "^(next|drop me)$" }
                    do: drop
              - type: keyboard
                backend: hid-gadget
                device: \(hidLink)
                key_delay: 0
                rules:
                  - when: { ai: "01" }
                    do: [take_ai: "01"]
                  - when: { symbology: upce }
                    do: [strip_leading: 1, strip_trailing: 1]
                unmatched: drop
            """)
        let client = try daemon.connect()
        try show(Self.packFrame())
        let pack = client.waitFor { $0["type"] as? String == "scan" }.match
        try #require(pack != nil)
        #expect(pack?["symbology"] as? String == "QR-Code" && pack?["gs1_source"] as? String == "digital-link")
        #expect((pack?["gs1"] as? [[String: Any]])?.compactMap { $0["ai"] as? String } == ["01", "10", "17"])
        #expect((pack?["merged"] as? [[String: Any]])?.first?["text"] as? String == "9506000134352")
        #expect(pack?["formatted"] as? String == Self.elementString)
        #expect(pack?["text"] as? String == Self.link)

        try showQR("next")
        let next = client.waitForScan("next")
        #expect(next.match != nil && next.match?["formatted"] as? String == "next")
        #expect(!next.skipped.contains { $0["type"] as? String == "scan" }, "the pack's EAN-13 was never a read of its own: \(next.skipped)")
        try showQR("drop me")
        // The socket logs the rule's drop; only then may the scene change.
        #expect(daemon.waitForLog("read sent as nothing by a formatting rule"))
        try show(Self.centred(Barcodes.zint(.upce, "0123456")))
        let upce = client.waitForScan("01234565")
        #expect(upce.match != nil)
        #expect(!upce.skipped.contains { $0["type"] as? String == "scan" }, "a rule sent 'drop me' to the socket as nothing")

        // Serial: the Digital Link as its element string, "next" and "drop me" dropped, UPC-E expanded.
        let serialBytes = Array((Self.elementString + "\r\n" + "012345000065\r\n").utf8)
        #expect(String(decoding: serial.read(atLeast: serialBytes.count), as: UTF8.self) == String(decoding: serialBytes, as: UTF8.self))
        // Keyboard: only the GTIN of the pack, then the UPC-E without number system and check digit.
        let keys = Self.typed(digits: "09506000134352") + Self.typed(digits: "123456")
        #expect(gadget.read(atLeast: keys.count) == keys)

        let (balanced, counters, _) = client.waitForBalancedCounters(timeout: 10)
        #expect(balanced, "\(counters)")
        #expect(counters["merged"] as? Int == 1)
        #expect((counters["dropped"] as? [String: Int])?["rule"] == 1)
        var outputs: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(10)
        repeat {
            outputs = (client.command("status")?["status"] as? [String: Any])?["outputs"] as? [[String: Any]] ?? []
        } while outputs.map({ ($0["sent"] as? Int ?? 0) + ($0["filtered"] as? Int ?? 0) }) != [4, 4] && Date() < deadline
        #expect(outputs.map { $0["sent"] as? Int } == [2, 2], "\(outputs)")
        #expect(outputs.map { $0["filtered"] as? Int } == [2, 2], "serial: next, drop me; keyboard: unmatched")
        #expect(outputs.allSatisfy { ($0["failed"] as? [String: Int] ?? [:]).isEmpty })
        serial.close()
        gadget.close()
    }

    @Test func thePlainSocketSendsTheFormattedLine() throws {
        let daemon = try start(
            """
            socket:
              format: plain
              gtin:
                upce: 13
                check_digit: strip
              rules:
                - when: { symbology: qr, prefix: "secret" }
                  do: drop
                - when: { symbology: qr }
                  do: [upper, prefix: "QR "]
            """)
        let client = try daemon.connect()
        try show(Self.centred(Barcodes.zint(.upce, "0123456")))
        #expect(client.line() == "001234500006")
        try showQR("secret one")
        #expect(daemon.waitForLog("read sent as nothing by a formatting rule"))
        try showQR("plain text")
        #expect(client.line() == "QR PLAIN TEXT", "the secret was sent as nothing")
    }

    /// The plain socket's line for `code` under `socket` keys; nil when the socket logged a rule's drop.
    func line(for code: String, socket: String) throws -> String? {
        let daemon = try start("socket:\n  format: plain\n" + socket + "\n")
        let client = try daemon.connect()
        try show(Self.centred(code))
        var line: String?
        let deadline = Date().addingTimeInterval(20)
        while line == nil && !daemon.log.contains("read sent as nothing by a formatting rule") && Date() < deadline {
            line = client.line(timeout: 0.1)
        }
        return line
    }

    @Test(arguments: FormattingCases.gtin)
    func eachGTINOptionOnTheSocket(_ option: FormattingCases.GTIN) throws {
        let code = try Barcodes.zint(option.symbology, option.data)
        #expect(try line(for: code, socket: "  gtin:\n" + FormattingCases.indented(option.option, by: 4)) == option.expected)
    }

    @Test(arguments: FormattingCases.rules)
    func eachRuleActionOnTheSocket(_ rule: FormattingCases.Rule) throws {
        let code = try Barcodes.zint(.code128, FormattingCases.ruleSubject)
        #expect(try line(for: code, socket: rule.keys(indentedBy: 2)) == rule.expected)
    }

    /// `listen` prints what the socket's formatting sends, and names the codes of the pack.
    @Test func listenShowsTheFormattedTextAndThePack() throws {
        let daemon = try start("socket:\n  rules:\n    - when: { ai: \"01\" }\n      do: [take_ai: \"01\"]\n")
        #expect(daemon.waitForLog("listening on"))
        let listen = try ListenProcess(socket: daemon.socketPath, count: 1)
        try show(Self.packFrame())
        #expect(listen.output.line() == "QR-Code:09506000134352 (with EAN-13)")
    }
}
