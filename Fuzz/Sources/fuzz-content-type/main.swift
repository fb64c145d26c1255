import Codes
import FuzzSupport

/// Content classification of a code's text: valid UTF-8 as is, anything else as binary.
func fuzzContentType(_ bytes: UnsafeRawBufferPointer) {
    let text = String(validating: bytes, as: UTF8.self)
    let type = ContentType.classify(text: text, isGS1: false)
    precondition((text == nil) == (type == .binary), "\(String(describing: text)) classified as \(type)")
    precondition(ContentType.classify(text: text, isGS1: true) == .gs1)
    // Case does not matter to the prefixes.
    if let text, type != .plain, type != .email { precondition(ContentType.classify(text: text.uppercased(), isGS1: false) == type) }
}

runFuzzer(fuzzContentType)
