import Codes
import FuzzSupport

/// GS1 Digital Link URIs. The elements of one that parses are element strings in their own right:
/// written as such (AI, value, GS), they parse to the same elements.
func fuzzDigitalLink(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let elements = try? GS1DigitalLink.parse(text, currentYear: 2026) else { return }
    precondition(!elements.isEmpty)
    // Values are not checked against GS1's character set, and a non-ASCII first character can join
    // the AI's last digit into one Character: the round trip is asked of ASCII values only.
    guard elements.allSatisfy({ $0.value.utf8.allSatisfy { $0 < 0x80 } }) else { return }
    let written = elements.map { $0.ai + $0.value }.joined(separator: String(GS1.groupSeparator))
    let again = try? GS1.parse(written, currentYear: 2026)
    precondition(again == elements, "'\(text)' parsed to \(elements), written back as '\(written)' to \(String(describing: again))")
}

runFuzzer(fuzzDigitalLink)
