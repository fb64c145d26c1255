import ConfigFile
import FuzzSupport

/// A config file's text, through libyaml and every section reader, as `ConfigFile.load` reads it
/// once the file is open: bytes that are not UTF-8 are refused there, so they are skipped here.
func fuzzConfig(_ bytes: UnsafeRawBufferPointer) {
    guard let text = String(validating: bytes, as: UTF8.self) else { return }
    do {
        _ = try ConfigFile.parse(text, file: "fuzz.conf")
    } catch {
        // A refused file must say why.
        precondition(!error.description.isEmpty)
    }
}

runFuzzer(fuzzConfig)
