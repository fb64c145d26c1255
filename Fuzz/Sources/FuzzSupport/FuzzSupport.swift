import CLibFuzzer

#if canImport(Glibc)
    import Glibc
#endif

nonisolated(unsafe) private var body: (UnsafeRawBufferPointer) -> Void = { _ in }

/// Hands `test` to libFuzzer as the function under test, with the process's arguments (corpus
/// folders, `-runs=`, `-max_total_time=`, a crash file to replay), and exits with its status.
///
/// SwiftPM links an executable with its module's main in place of `main`, so libFuzzer's own
/// main (which calls `LLVMFuzzerTestOneInput`) never runs; the target's main.swift calls this.
public func runFuzzer(_ test: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    body = test
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in testOneInput(data, size) })
}

/// libFuzzer's entry point, which its archive's unused main refers to.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    body(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
