import Codes
import FuzzSupport

/// GS1 element strings (the data after FNC1, GS between them). What parses must parse again to
/// the same elements when written back with a GS after each one.
func fuzzGS1(_ bytes: UnsafeRawBufferPointer) {
    let data = String(decoding: bytes, as: UTF8.self)
    guard let elements = try? GS1.parse(data, currentYear: 2026) else { return }
    precondition(!elements.isEmpty)
    let written = elements.map { $0.ai + $0.value }.joined(separator: String(GS1.groupSeparator))
    let again = try? GS1.parse(written, currentYear: 2026)
    precondition(again == elements, "'\(data)' parsed to \(elements), written back as '\(written)' to \(String(describing: again))")
    _ = ContentType.classify(text: data, isGS1: true)
}

runFuzzer(fuzzGS1)
