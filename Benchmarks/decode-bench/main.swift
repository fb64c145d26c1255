// decode-bench: our decode path beside bare libzbar (per-frame cost), and beside zbarimg
// (accuracy over a corpus of real photos). Usage: decode-bench frames [--iterations N] | accuracy [CORPUS]
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "frames":
    let iterations = arguments.firstIndex(of: "--iterations").flatMap { Int(arguments[$0 + 1]) } ?? 40
    try FrameBenchmark(iterations: iterations).run()
case "accuracy":
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/corpus/zxing-cpp-samples").standardized.path
    try AccuracyBenchmark(corpus: arguments.count > 1 ? arguments[1] : root).run()
default:
    FileHandle.standardError.write(Data("usage: decode-bench frames [--iterations N] | accuracy [CORPUS]\n".utf8))
    exit(2)
}
