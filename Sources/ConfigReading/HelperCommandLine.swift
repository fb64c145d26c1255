import Logging
import Platform
import SystemPackage

/// The command line the daemon's helper programs share (`kiosk-scanner-mqtt`, `kiosk-scanner-web`):
/// `[--config FILE] [--log-level LEVEL]`, logging to standard error at that level, and their config.
public struct HelperCommandLine: Sendable {
    /// The program's name after `kiosk-scanner`, as `kiosk-scanner NAME` runs it: `mqtt`, `web`.
    public let name: String
    public private(set) var configPath = ConfigText.defaultPath
    public private(set) var level = Logger.Level.info

    /// Reads the process's arguments; a wrong one, or `--help`, ends the process with the usage.
    public init(name: String) {
        self.name = name
        let usage = "usage: kiosk-scanner \(name) [--config FILE] [--log-level trace|debug|info|notice|warning|error]"
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--config":
                guard let path = arguments.popFirst() else { fail(usage) }
                configPath = path
            case "--log-level":
                guard let text = arguments.popFirst(), let parsed = Logger.Level(rawValue: text) else { fail(usage) }
                level = parsed
            case "-h", "--help":
                print(usage)
                CurrentProcess.exit(0)
            default:
                fail("unknown argument '\(argument)'\n\(usage)")
            }
        }
        let chosen = level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = chosen
            return handler
        }
    }

    /// The config file's sections that the helper programs read.
    public func config() throws(ConfigError) -> ClientConfig {
        try ClientConfig.parse(try ConfigText.read(path: configPath), file: configPath)
    }

    /// Writes `kiosk-scanner NAME: text` and a newline to standard error and exits with `status`.
    public func fail(_ text: String, status: Int32 = 2) -> Never {
        _ = try? FileDescriptor.standardError.writeAll("kiosk-scanner \(name): \(text)\n".utf8)
        CurrentProcess.exit(status)
    }
}
