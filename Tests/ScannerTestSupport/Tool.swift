import Foundation

/// What a finished process left behind.
public struct ToolResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs programs for tests: helpers from apt, and the project's own binary.
public enum Tool {
    /// A program failed that a test needed to succeed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `program` (looked up on PATH) and fails unless it exits 0.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String]) throws -> ToolResult {
        let result = try capture(program, arguments)
        guard result.status == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result
    }

    /// Runs `program` and returns its exit status and output, whatever the status.
    public static func capture(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ToolResult {
        try start(program, arguments, environment: environment).wait()
    }

    /// Starts `program` (a path, or a name looked up on PATH) in the background; `wait()` gives its result.
    public static func start(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> RunningTool {
        try RunningTool(program: program, arguments: arguments, environment: environment)
    }

    /// Runs an oracle, `script` under `interpreter`, once for all `requests`: each goes to it as a
    /// JSON line, through a file, so that neither side waits on a full pipe; each line it prints is
    /// decoded as an `Answer`.
    public static func jsonLines<Request: Encodable, Answer: Decodable>(
        _ interpreter: String, _ script: String, _ requests: [Request], as answer: Answer.Type
    ) throws -> [Answer] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(getpid())-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: path) }
        let encoder = JSONEncoder()
        try Data(requests.map { try encoder.encode($0) + Data("\n".utf8) }.joined()).write(to: path)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = [script]
        process.standardInput = try FileHandle(forReadingFrom: path)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try printed.split(separator: UInt8(ascii: "\n")).map { try JSONDecoder().decode(Answer.self, from: Data($0)) }
    }

    /// The built `kiosk-scanner` binary beside the running test bundle, or $KIOSK_SCANNER_BIN.
    public static var scannerBinary: String {
        if let override = ProcessInfo.processInfo.environment["KIOSK_SCANNER_BIN"] { return override }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The test runner sits in the build folder, or inside an .xctest bundle in it.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("kiosk-scanner").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("kiosk-scanner").path
    }
}

/// Reads a file handle to its end on a background thread. A failed read ends the text with the
/// error, for the test to show, rather than trapping as `readDataToEndOfFile()` does and taking
/// the whole test run down with it.
final class ReadAll: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            do {
                data = try handle.readToEnd() ?? Data()
            } catch {
                data.append(contentsOf: Array("\n[reading the pipe failed: \(error)]\n".utf8))
            }
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// A program started by `Tool.start`, its output collected as it runs (so that a chatty child
/// cannot block on a full pipe).
public final class RunningTool: @unchecked Sendable {
    private let process = ChildProcess()
    private let out: ReadAll
    private let err: ReadAll

    init(program: String, arguments: [String], environment: [String: String]?) throws {
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
        process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        out = ReadAll(outPipe.fileHandleForReading)
        err = ReadAll(errPipe.fileHandleForReading)
    }

    /// Waits for the program to exit.
    public func wait() -> ToolResult {
        let stdout = out.wait()
        let stderr = err.wait()
        process.waitUntilExit()
        return ToolResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}
