import ArgumentParser
import ConfigFile
import FoundationEssentials
import ScannerProtocol

/// `--socket PATH`: the running daemon's socket, for the commands that talk to it.
struct DaemonSocket: ParsableArguments {
    @Option(help: "The socket path.")
    var socket = SocketConfig().path

    /// A connection declared a tool's (no reads are written to it); when nothing answers on the
    /// socket, says why and exits 2.
    func connectAsTool(timeout: Double? = nil) throws -> SocketLines {
        let connection: SocketLines
        do {
            connection = try SocketLines(path: socket, timeout: timeout)
        } catch {
            Scan.fail("cannot connect to \(socket): \(error.description); is the daemon running?")
            throw ExitCode(2)
        }
        connection.declareTool()
        return connection
    }
}

/// `--config FILE`: the config file the daemon reads, for `run` and `gpio-test`.
struct ConfigOption: ParsableArguments {
    @Option(help: "The config file.")
    var config = ConfigFile.defaultPath

    /// Whether it is the default path and nothing is there: the daemon then runs on built-in defaults.
    var isMissingDefault: Bool { config == ConfigFile.defaultPath && !FileManager.default.fileExists(atPath: config) }
}

/// `--count N`: how many codes `listen` and `hidpos-listen` print before they exit.
struct StopAfter: ParsableArguments {
    @Option(help: "Stop after this many codes (0: never).")
    var count = 0

    /// Whether `printed` codes are as many as were asked for.
    func isReached(_ printed: Int) -> Bool { count > 0 && printed >= count }
}
