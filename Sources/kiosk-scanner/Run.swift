import ArgumentParser
import ConfigFile
import Daemon
import FoundationEssentials
import Logging
import ScannerProtocol

/// `kiosk-scanner run`: the daemon.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the scanner daemon: capture, decode, and deliver reads on the UNIX socket.",
        discussion: """
            Without the default config file, it runs on built-in defaults. SIGTERM/SIGINT stop it cleanly; SIGHUP re-reads \
            the config file (a bad file is logged and the running config kept).
            """
    )

    @OptionGroup var configFile: ConfigOption

    @Option(help: "Override camera.device: a path, auto, libcamera[:ID], or replay:DIR.")
    var device: String?

    @Option(help: "Override socket.path.")
    var socket: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let level = logLevel
        let journal = JournalLogHandler.standardErrorIsJournal
        LoggingSystem.bootstrap { label in
            if journal {
                var handler = JournalLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "kiosk-scanner")
        let overrides = Overrides(device: device, socket: socket)
        var settings: ScannerConfig
        let config = configFile.config
        var path: String? = config
        do {
            settings = try ConfigFile.load(path: config)
        } catch let error where error.line == nil && configFile.isMissingDefault {
            logger.notice("no \(config): running on built-in defaults")
            settings = ScannerConfig()
            path = nil
        } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
        overrides.apply(&settings)
        for notice in settings.documentNotices { logger.notice("\(notice)") }
        MallocSettings.apply()
        // Argument parsing and the config loader are done with: their code need not stay resident.
        StartupPages.release()
        do {
            try await Supervisor.run(config: settings, configPath: path, adjust: overrides.apply, logger: logger)
        } catch {
            logger.critical("stopped: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Command-line settings that win over the config file, also after a reload.
struct Overrides: Sendable {
    let device: String?
    let socket: String?

    @Sendable func apply(_ config: inout ScannerConfig) {
        if let device { config.camera.device = device }
        if let socket { config.socket.path = socket }
    }
}

// swift-log and swift-argument-parser know nothing of each other: `--log-level` needs this bridge.
// swift-format-ignore: AvoidRetroactiveConformances
extension Logger.Level: @retroactive ExpressibleByArgument {}
