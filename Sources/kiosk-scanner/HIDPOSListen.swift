import ArgumentParser
import Codes
import Daemon
import FoundationEssentials
import Keyboard
import SystemPackage

/// `kiosk-scanner hidpos-listen [/dev/hidrawN]`: the POS computer's side of the hid-pos output.
/// Prints each code a USB HID POS bar code scanner sends, as `listen` prints reads.
struct HIDPOSListen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hidpos-listen",
        abstract: "On the POS computer: print the codes a USB HID POS barcode scanner (hid-pos output) sends.",
        discussion: """
            Reads /dev/hidrawN (by default the first whose report descriptor is a Bar Code Scanner, usage page 0x8C), \
            joins reports chained with Decode Data Continued, and prints each code as its AIM identifier and text \
            (`]E0 5901234123457`); data that is not text is printed as hex. --pause and --resume send the Trigger \
            Report (Prevent Read / Initiate Read) instead. The user needs read and write access to the hidraw node.
            """
    )

    @Argument(help: "The hidraw node; by default the first bar code scanner in /sys/class/hidraw.")
    var device: String?

    @Flag(help: "Print every code's data as hex.")
    var hex = false

    @Flag(help: "Ask the scanner to stop reading (Prevent Read of Barcodes), then exit.")
    var pause = false

    @Flag(help: "Ask the scanner to read again (Initiate Barcode Read), then exit.")
    var resume = false

    @OptionGroup var stopAfter: StopAfter

    func run() throws {
        guard let path = device ?? Self.firstScanner() else {
            Scan.fail("no HID POS barcode scanner in /sys/class/hidraw (is the board's hid-pos gadget function plugged in?)")
            throw ExitCode(1)
        }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, pause || resume ? .readWrite : .readOnly, options: .closeOnExec)
        } catch {
            Scan.fail("cannot open \(path): \(error)")
            throw ExitCode(1)
        }
        defer { try? file.close() }
        if pause || resume {
            let report = HIDPOS.report(for: pause ? .preventRead : .initiateRead)
            do {
                _ = try report.withUnsafeBytes { try file.write($0) }
            } catch {
                Scan.fail("\(path): \(error)")
                throw ExitCode(1)
            }
            return
        }
        var assembler = HIDPOS.Assembler()
        var codes = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        // hidraw gives one report per read; a file or pipe of reports is cut into 64-byte reports.
        var pending: [UInt8] = []
        while true {
            let length: Int
            do {
                length = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
            } catch Errno.interrupted {
                continue
            } catch {
                Scan.fail("\(path): \(error)")
                throw ExitCode(1)
            }
            if length == 0 { throw ExitCode(stopAfter.count > 0 ? 1 : 0) }
            pending += buffer.prefix(length)
            while pending.count >= HIDPOS.reportLength {
                let report = Array(pending.prefix(HIDPOS.reportLength))
                pending.removeFirst(HIDPOS.reportLength)
                guard let code = assembler.add(report) else { continue }
                // The AIM bytes and the data are the scanner's to choose: on a terminal, escaped as
                // `listen` escapes reads.
                writeLine(Scan.forTerminal("\(code.aim) \(shown(code.data))", json: false), to: .standardOutput)
                codes += 1
                if stopAfter.isReached(codes) { return }
            }
        }
    }

    /// The data as text when it is UTF-8 without C0 but GS (shown as <GS>), else as hex.
    private func shown(_ data: [UInt8]) -> String {
        let hexText = data.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        guard !hex, let text = String(validating: data, as: UTF8.self),
            text.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0.value == 0x1D })
        else { return hex ? hexText : "<binary \(data.count) bytes> \(hexText)" }
        return text.split(separator: "\u{1D}", omittingEmptySubsequences: false).joined(separator: "<GS>")
    }

    /// The first hidraw node whose report descriptor has a Bar Code Scanner application collection.
    static func firstScanner() -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/hidraw"))?.sorted() ?? []
        return names.first { name in
            guard let descriptor = FileManager.default.contents(atPath: "/sys/class/hidraw/\(name)/device/report_descriptor") else { return false }
            return HIDPOS.isBarCodeScanner(descriptor: Array(descriptor))
        }.map { "/dev/\($0)" }
    }
}
