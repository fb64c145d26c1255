import Codes
import Foundation
import Keyboard
import ScannerTestSupport
import Testing

/// `systemd/kiosk-scanner-gadget` writes the configfs tree of a HID boot keyboard, a HID POS bar
/// code scanner and a CDC-ACM port (here into a plain directory; the real-kernel rig binds it to
/// dummy_hcd).
@Suite struct GadgetScriptTests {
    static let script = HIDPOSHost.gadgetScript

    @Test func theHIDPOSDescriptorPlacesEveryFieldOfOurReports() throws {
        let (gadget, result) = try HIDPOSHost.gadget(["hid", "hid-pos", "acm"])
        #expect(result.status == 0, "\(result.stderr)")
        func read(_ file: String) -> String { (try? String(contentsOfFile: "\(gadget)/\(file)", encoding: .utf8)) ?? "" }
        #expect(read("functions/hid.pos/protocol") == "0\n" && read("functions/hid.pos/subclass") == "0\n")
        #expect(read("functions/hid.pos/report_length") == "64\n")
        #expect(FileManager.default.fileExists(atPath: "\(gadget)/configs/c.1/hid.pos"))
        let descriptor = "\(gadget)/functions/hid.pos/report_desc"
        // Short, exactly one report, one byte over, several reports; every byte value; empty.
        let codes: [(String, [UInt8])] = [
            ("]E0", Array("5901234123457".utf8)), ("]Q1", (0..<56).map { UInt8($0) }), ("]C1", Array("0109501101530003\u{1D}10AB".utf8)),
            ("]Q1", (0..<57).map { UInt8(255 - $0) }), ("]Q1", (0..<300).map { UInt8($0 % 256) }), ("]d1", []),
        ]
        let reports = codes.map { HIDPOS.reports(data: $0.1, aim: $0.0) }
        #expect(reports.map(\.count) == [1, 1, 1, 2, 6, 1])
        #expect(
            try HIDPOSHost.codes(in: reports.flatMap { $0 }.flatMap { $0 }, descriptor: descriptor) == codes.map { "aim=\($0.0) hex=\(HIDPOSHost.hex($0.1))" })

        // The host's Trigger Report, built from the descriptor's output usages, is what we act on.
        for (word, request) in [("prevent", HIDPOS.HostRequest.preventRead), ("initiate", .initiateRead)] {
            let report = try HIDPOSHost.triggerReport(word, descriptor: descriptor)
            #expect(HIDPOS.requests(in: report) == [request], "\(word): \(report)")
            #expect(HIDPOS.report(for: request) == report)
        }
    }

    @Test func aScannerIsFoundByItsApplicationCollectionNotByItsFirstBytes() throws {
        let (gadget, result) = try HIDPOSHost.gadget(["hid", "hid-pos"])
        #expect(result.status == 0, "\(result.stderr)")
        let pos = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(gadget)/functions/hid.pos/report_desc")))
        let keyboard = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(gadget)/functions/hid.usb0/report_desc")))
        #expect(HIDPOS.isBarCodeScanner(descriptor: pos))
        #expect(!HIDPOS.isBarCodeScanner(descriptor: keyboard))
        // A composite device: a keyboard collection first, the scanner second.
        #expect(HIDPOS.isBarCodeScanner(descriptor: keyboard + pos))
        // Usage 0x02 on another page is not a scanner; a truncated descriptor is none.
        #expect(!HIDPOS.isBarCodeScanner(descriptor: [0x05, 0x01, 0x09, 0x02, 0xA1, 0x01, 0xC0]))
        #expect(!HIDPOS.isBarCodeScanner(descriptor: Array(pos.prefix(3))))
    }

    @Test func ourAssemblerJoinsChainedReportsAndSkipsOthers() {
        var assembler = HIDPOS.Assembler()
        let data = (0..<130).map { UInt8($0) }
        let reports = HIDPOS.reports(data: data, aim: "]Q1")
        #expect(assembler.add(reports[0]) == nil && assembler.add([4, 2]) == nil && assembler.add(reports[1]) == nil)
        let code = assembler.add(reports[2])
        #expect(code?.aim == "]Q1" && code?.data == data)
        #expect(HIDPOS.reports(data: [1], aim: "weird")[0][2..<5] == [0, 0, 0], "an identifier that is not ]xy is sent as zeros")
    }

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
        // A boot keyboard: Generic Desktop / Keyboard application collection, 8-byte input, LED
        // output, key usages 0-255 (Logical and Usage Maximum 0x00FF).
        #expect(descriptor.count == 65)
        #expect(Array(descriptor.suffix(13)) == [0x26, 0xFF, 0x00, 0x05, 0x07, 0x19, 0x00, 0x2A, 0xFF, 0x00, 0x81, 0x00, 0xC0])
        #expect(Array(descriptor.prefix(6)) == [0x05, 0x01, 0x09, 0x06, 0xA1, 0x01] && descriptor.last == 0xC0)
        #expect(FileManager.default.fileExists(atPath: "\(gadget)/configs/c.1/hid.usb0"))
        #expect(FileManager.default.fileExists(atPath: "\(gadget)/configs/c.1/acm.usb0"))

        let unknown = try Tool.capture(Self.script, ["start", "printer"], environment: ["KS_GADGET_CONFIGFS": configfs])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown function 'printer'"))
        #expect(!FileManager.default.fileExists(atPath: "\(gadget)/functions/hid.pos"), "hid-pos only when asked for")
    }
}

/// The POS computer's tools: `hidpos-listen` (codes from a HID POS scanner) and `layout` (what the
/// keyboard wedge types on a host layout).
@Suite struct HostToolTests {
    @Test func hidposListenJoinsChainedReportsAndShowsTextAndBinary() throws {
        let binary = (0..<100).map { UInt8(255 - $0) }
        let reports = HIDPOS.reports(data: Array("0109501101530003\u{1D}10AB".utf8), aim: "]C1") + HIDPOS.reports(data: binary, aim: "]Q1")
        let path = try TemporaryDirectory.shared.file("hidraw-\(UUID().uuidString.prefix(8))")
        try Data(reports.flatMap { $0 }).write(to: URL(fileURLWithPath: path))
        let result = try Tool.capture(Tool.scannerBinary, ["hidpos-listen", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "]C1 0109501101530003<GS>10AB\n]Q1 <binary 100 bytes> \(HIDPOSHost.hex(binary))\n")

        // --pause writes the Trigger Report that the descriptor's Prevent Read usage places.
        let out = try TemporaryDirectory.shared.file("hidraw-out-\(UUID().uuidString.prefix(8))")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        #expect(try Tool.capture(Tool.scannerBinary, ["hidpos-listen", "--pause", out]).status == 0)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))) == (try HIDPOSHost.triggerReport("prevent", descriptor: HIDPOSHost.descriptor())))
    }

    @Test func theOutputsPagesPythonHostReadsOurReports() throws {
        let example = try #require(try Markdown.codeBlocks("python", in: "docs/outputs.md", after: "## HID POS").first, "no python example in docs/outputs.md")
        let binary = (0..<70).map { UInt8($0 * 3 % 256) }
        let reports = HIDPOS.reports(data: Array("5901234123457".utf8), aim: "]E0") + HIDPOS.reports(data: binary, aim: "]Q1")
        let path = try TemporaryDirectory.shared.file("hidraw-py-\(UUID().uuidString.prefix(8))")
        try Data(reports.flatMap { $0 }).write(to: URL(fileURLWithPath: path))
        let script = example.replacingOccurrences(of: "/dev/hidraw0", with: path)
        // The example reads forever; at the end of the file, report[1] raises IndexError.
        let result = try Tool.capture("python3", ["-c", "import sys, textwrap; exec(textwrap.dedent(sys.argv[1]))", String(script)])
        let expected = "]E0 b'5901234123457'\n]Q1 \(try Tool.capture("python3", ["-c", "print(bytes(\(binary)))"]).stdout)"
        #expect(result.stdout == expected, "\(result.stderr)")
    }

    @Test func layoutShowsTheKeysAndCountsWhatIsMissing() throws {
        let de = try Tool.capture(Tool.scannerBinary, ["layout", "de", "@^z"])
        #expect(de.status == 0)
        #expect(de.stdout == "'@' altgr+q\n'^' grave then space\n'z' y\nde: 3 of 3 characters typed, 1 through a dead key; missing: none\n")
        let ru = try Tool.capture(Tool.scannerBinary, ["layout", "ru", "a1"])
        #expect(ru.status == 1 && ru.stdout.hasSuffix("ru: 1 of 2 characters typed, 0 through a dead key; missing: a\n"))
        let unknown = try Tool.capture(Tool.scannerBinary, ["layout", "qq"])
        #expect(unknown.status == 2 && unknown.stderr.contains("no layout 'qq'"))
    }
}
