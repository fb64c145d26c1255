import ArgumentParser
import ConfigFile

/// `kiosk-scanner check-config [FILE]`: validates a config file without starting anything.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file; on an error, print FILE:LINE: KEY: REASON and exit 1."
    )

    @Argument(help: "The config file.")
    var file = ConfigFile.defaultPath

    func run() throws {
        do {
            let config = try ConfigFile.load(path: file)
            print("\(file): OK")
            for notice in config.documentNotices { print("\(file): note: \(notice)") }
        } catch {
            Scan.fail("\(error)")
            throw ExitCode(1)
        }
    }
}
