import FuzzSupport
import Keyboard

/// The host side of HID POS: what a host reads from a scanner (64-byte scanned data reports, as
/// `kiosk-scanner hidpos-listen` cuts its stream), the trigger reports it writes, and a report
/// descriptor. And the scanner side's reports of the input as data, which must assemble back to it.
func fuzzHIDPOS(_ bytes: UnsafeRawBufferPointer) {
    let bytes = Array(bytes)
    var assembler = HIDPOS.Assembler()
    for at in stride(from: 0, to: bytes.count - HIDPOS.reportLength + 1, by: HIDPOS.reportLength) {
        if let code = assembler.add(Array(bytes[at..<at + HIDPOS.reportLength])) {
            precondition(code.aim.unicodeScalars.count <= 3)
        }
    }
    let requests = HIDPOS.requests(in: bytes)
    precondition(requests.count <= bytes.count)
    _ = HIDPOS.isBarCodeScanner(descriptor: bytes)

    var roundTrip = HIDPOS.Assembler()
    let reports = HIDPOS.reports(data: bytes, aim: "]Q1")
    for report in reports.dropLast() { precondition(roundTrip.add(report) == nil) }
    let code = roundTrip.add(reports.last!)
    precondition(code?.aim == "]Q1" && code?.data == bytes, "\(bytes) came back as \(String(describing: code))")
    let aim = String(decoding: bytes.prefix(3), as: UTF8.self)
    precondition(HIDPOS.reports(data: [], aim: aim).count == 1)
}

runFuzzer(fuzzHIDPOS)
