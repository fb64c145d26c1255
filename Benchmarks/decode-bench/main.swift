// decode-bench: our decode path beside bare libzbar (per-frame cost), and beside zbarimg
// (accuracy over a corpus of real photos); and recorded passes through the read pipeline on a frame
// clock (`stream`, for motion-bench's kept passes). Usage: decode-bench frames [--iterations N] |
// accuracy [CORPUS] | stream --background FILE [--fps 30] [--grace 0.5] [--load 0 [--wall] | --schedule FILE] [--costs] PASS_DIR...
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "frames":
    let iterations = arguments.firstIndex(of: "--iterations").flatMap { Int(arguments[$0 + 1]) } ?? 40
    try FrameBenchmark(iterations: iterations).run()
case "accuracy":
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/corpus/zxing-cpp-samples").standardized.path
    try AccuracyBenchmark(corpus: arguments.count > 1 ? arguments[1] : root).run()
case "stream":
    do {
        try StreamReplay(arguments: Array(arguments.dropFirst())).run()
    } catch let error as StreamReplay.ReplayError {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(2)
    }
default:
    FileHandle.standardError.write(Data("usage: decode-bench frames [--iterations N] | accuracy [CORPUS] | stream --background FILE PASS_DIR...\n".utf8))
    exit(2)
}
