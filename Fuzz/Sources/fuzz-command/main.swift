import FuzzSupport
import ScannerProtocol

/// One socket command line, as the server reads it: at most `maxLineBytes`, decoded leniently.
func fuzzCommand(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count <= Command.maxLineBytes else { return }
    let line = String(decoding: bytes, as: UTF8.self)
    switch Command.parse(line) {
    case .success(let command):
        // The reply echoes the name; it is the verb the client wrote, in any case.
        let verb = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first.map { $0.lowercased() }
        precondition(verb == command.name, "parsed '\(line)' as \(command)")
        if case .record(let seconds) = command { precondition(seconds > 0 && seconds <= Command.maxRecordSeconds) }
        if case .watch(let fps, let width) = command { precondition(Command.watchFPS.contains(fps) && Command.watchWidth.contains(width)) }
        // A nak's reason is what the daemon looks up as a feedback pattern's name.
        if case .nak(_, let reason?) = command { precondition(Command.isReason(reason), "parsed '\(line)' as \(command)") }
    case .failure(let error):
        precondition(!error.message.isEmpty)
    }
}

runFuzzer(fuzzCommand)
