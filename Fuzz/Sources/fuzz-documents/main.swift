import Codes
import Documents
import FoundationEssentials
import FuzzSupport
import Imaging

/// A fixed day, so that a finding replays the same way on any date.
let today = CalendarDate(year: 2026, month: 11, day: 25)
/// The symbologies a kiosk document arrives in; the input's length picks one, so the data stays as written.
let symbologies: [Symbology] = [.pdf417, .aztec, .qr, .datamatrix]
let box = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])

/// Kiosk documents (issue #35): the AAMVA DL/ID and IATA BCBP parsers on the input, then the read
/// capture makes of it. A parsed licence's fields must encode as JSON; a pass's `legs_count` is the
/// number of its `legs` records; a read withholding its raw data has neither text nor bytes left.
func fuzzDocuments(_ bytes: UnsafeRawBufferPointer) {
    let data = Array(bytes)
    if case .success(let document) = AAMVA.parse(data, today: today) {
        let json = try? JSONEncoder().encode(DocumentFields(document.fields))
        precondition(json != nil, "the fields of \(data) do not encode: \(document.fields)")
    }
    let text = String(decoding: data, as: UTF8.self)
    if case .success(let pass) = BCBP.parse(text, today: today) {
        let fields = pass.fields
        let count = fields.first { $0.name == "legs_count" }?.value
        let legs = fields.first { $0.name == "legs" }?.value
        guard case .number(let n)? = count, case .records(let records)? = legs else {
            preconditionFailure("'\(text)' parsed without legs_count and legs: \(fields)")
        }
        precondition(n == records.count && n == pass.legs.count, "'\(text)': legs_count \(n), \(records.count) legs")
    }
    var read = Read(symbol: Symbol(symbology: symbologies[data.count % symbologies.count], bytes: data, corners: box), frame: Size(width: 64, height: 48))
    read.readDocument(DocumentsConfig(), today: today)
    if read.rawWithheld == true {
        precondition(read.text == nil && read.bytes.isEmpty && (read.id != nil || read.boardingPass != nil))
    }
    precondition((try? JSONEncoder().encode(read)) != nil, "the read of \(data) does not encode")
}

runFuzzer(fuzzDocuments)
