import ConfigReading
import Console
import Logging
import Platform
import SystemPackage

// kiosk-scanner-web [--config FILE] [--log-level LEVEL]: the installer's console, a program of
// its own so that the capture daemon links no HTTP code. `kiosk-scanner web` runs it.

/// Writes `text` and a newline to standard error and exits with `status`.
func fail(_ text: String, status: Int32 = 2) -> Never {
    _ = try? FileDescriptor.standardError.writeAll((text + "\n").utf8)
    CurrentProcess.exit(status)
}

func main() async {
    let usage = "usage: kiosk-scanner web [--config FILE] [--log-level trace|debug|info|notice|warning|error]"
    var configPath = ConfigText.defaultPath
    var level = Logger.Level.info
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--config":
            guard let path = arguments.popFirst() else { fail(usage) }
            configPath = path
        case "--log-level":
            guard let name = arguments.popFirst(), let parsed = Logger.Level(rawValue: name) else { fail(usage) }
            level = parsed
        case "-h", "--help":
            print(usage)
            CurrentProcess.exit(0)
        default:
            fail("kiosk-scanner web: unknown argument '\(argument)'\n\(usage)")
        }
    }
    let chosen = level
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = chosen
        return handler
    }
    let console: Console
    do {
        let config = try ClientConfig.load(path: configPath)
        console = try Console(settings: ConsoleSettings(config), logger: Logger(label: "kiosk-scanner-web"))
    } catch {
        fail("kiosk-scanner web: \(error)")
    }
    Signals.ignoreBrokenPipe()
    do {
        try await console.run()
    } catch {
        fail("kiosk-scanner web: \(error)", status: 1)
    }
}

await main()
