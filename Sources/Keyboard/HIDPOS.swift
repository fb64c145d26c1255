import Codes

/// The board as a USB HID Point of Sale bar code scanner: the reports, as the HID Point of Sale
/// Usage Tables 1.02 (5 March 2001) define them for a bar code scanner: section 3, "Usage Page Bar
/// Code Scanner (0x8C)", whose usage table opens the section (p. 4), with 3.1 Application Usages
/// and 3.2 Report Usages on p. 10, 3.4 General Decoder Usages on p. 13 and 3.6 Laser/Motor
/// Control Usages on pp. 13-14. The same page is section 32 of the HID Usage Tables 1.6. Laid out byte for byte as Honeywell's scanners send
/// them, which Windows' hidscanner.dll reads (the descriptor is in systemd/kiosk-scanner-gadget).
/// Pure: bytes in, bytes out.
public enum HIDPOS {
    /// Input report 2, Scanned Data Report (0x8C:0x12), 64 bytes with its ID:
    /// 0 report ID; 1 Byte Count (Generic Desktop 0x3B), the data bytes in this report;
    /// 2-4 Symbology Identifier 1, 2, 3 (0x8C:0xFB-0xFD), the AIM identifier `]`, code, modifier;
    /// 5-60 Decoded Data (0x8C:0xFE, buffered bytes); 61-62 padding;
    /// 63 bit 0 Decode Data Continued (0x8C:0xFF): more of this code follows in the next report.
    public static let scannedDataReportID: UInt8 = 2
    public static let reportLength = 64
    public static let dataPerReport = 56
    static let dataOffset = 5
    static let continuedOffset = 63

    /// Output report 4, Trigger Report (0x8C:0x14), which the host sends: bit 1 Prevent Read of
    /// Barcodes (0x8C:0x5F), bit 2 Initiate Barcode Read (0x8C:0x60); the other bits are padding.
    public static let triggerReportID: UInt8 = 4

    /// What a host asks of the scanner.
    public enum HostRequest: Sendable, Hashable {
        /// Prevent Read of Barcodes: scanning paused.
        case preventRead
        /// Initiate Barcode Read: scanning resumed.
        case initiateRead
    }

    /// The reports that carry `data` with the AIM identifier `aim` (e.g. `]Q1`); an identifier that
    /// is not three ASCII characters is sent as three zero bytes. Data of any bytes, chained in
    /// reports of 56 with the continuation bit set on all but the last; empty data is one report.
    public static func reports(data: [UInt8], aim: String) -> [[UInt8]] {
        let identifier = Array(aim.utf8)
        let symbology = identifier.count == 3 && identifier.allSatisfy { $0 < 0x80 } ? identifier : [0, 0, 0]
        let chunks = stride(from: 0, to: max(data.count, 1), by: dataPerReport).map { Array(data[$0..<min($0 + dataPerReport, data.count)]) }
        return chunks.enumerated().map { index, chunk in
            var report = [UInt8](repeating: 0, count: reportLength)
            report[0] = scannedDataReportID
            report[1] = UInt8(chunk.count)
            report.replaceSubrange(2..<5, with: symbology)
            report.replaceSubrange(dataOffset..<dataOffset + chunk.count, with: chunk)
            report[continuedOffset] = index < chunks.count - 1 ? 1 : 0
            return report
        }
    }

    /// The requests in what the host sent: Trigger Reports, report ID first (one per read from a
    /// gadget, more than one when a stream joined them).
    public static func requests(in bytes: [UInt8]) -> [HostRequest] {
        stride(from: 0, to: bytes.count - 1, by: 2).flatMap { at -> [HostRequest] in
            guard bytes[at] == triggerReportID else { return [] }
            return (bytes[at + 1] & 0x02 != 0 ? [.preventRead] : []) + (bytes[at + 1] & 0x04 != 0 ? [.initiateRead] : [])
        }
    }

    /// The output report that asks for `request`.
    public static func report(for request: HostRequest) -> [UInt8] {
        [triggerReportID, request == .preventRead ? 0x02 : 0x04]
    }

    /// Whether a report descriptor has a Bar Code Scanner application collection (Usage Page 0x8C,
    /// Usage 0x02, Collection (Application)) among its top-level collections. Walks the short
    /// items of HID 1.11, 6.2.2.2 (the prefix byte: size in bits 0-1, type in 2-3, tag in 4-7).
    public static func isBarCodeScanner(descriptor: [UInt8]) -> Bool {
        var page: UInt32 = 0
        var usage: UInt32?
        var at = 0
        while at < descriptor.count {
            let prefix = descriptor[at]
            if prefix == 0xFE {  // a long item: its data size is the next byte
                at += 3 + (at + 1 < descriptor.count ? Int(descriptor[at + 1]) : 0)
                continue
            }
            let size = [0, 1, 2, 4][Int(prefix & 3)]
            guard at + 1 + size <= descriptor.count else { return false }
            let value = descriptor[(at + 1)..<(at + 1 + size)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            switch (prefix >> 2 & 3, prefix >> 4) {
            case (1, 0): page = value  // Usage Page
            case (2, 0): usage = size == 4 ? value : page << 16 | value  // Usage
            case (0, 0xA):  // Collection
                if value == 1 && usage == 0x8C << 16 | 0x02 { return true }
                usage = nil
            case (0, _): usage = nil  // other main items end the local state
            default: break
            }
            at += 1 + size
        }
        return false
    }

    /// Joins scanned data reports (as a host reads them, report ID first) back into codes.
    public struct Assembler: Sendable {
        private var data: [UInt8] = []
        /// More than any symbology holds (a QR code at most 7089 digits; a Grid of PDF417 less).
        public static let maxCodeBytes = 64 << 10
        public init() {}

        /// Takes one report; returns the AIM identifier and data when it completes a code. Reports
        /// that are not scanned data, or say they hold more than they can, are ignored.
        public mutating func add(_ report: [UInt8]) -> (aim: String, data: [UInt8])? {
            guard report.count >= reportLength, report[0] == scannedDataReportID, Int(report[1]) <= dataPerReport else { return nil }
            // A scanner that never clears the continuation bit must not grow a host without end:
            // past the largest code any symbology holds, the code so far is dropped.
            if data.count + Int(report[1]) > Self.maxCodeBytes { data = [] }
            data += report[dataOffset..<dataOffset + Int(report[1])]
            guard report[continuedOffset] & 1 == 0 else { return nil }
            defer { data = [] }
            return (String(decoding: report[2..<5].filter { $0 != 0 }, as: UTF8.self), data)
        }
    }
}
