import ArgumentParser

/// `kiosk-scanner web`: runs the installer's console, `kiosk-scanner-web` (a program of its own:
/// `HelperProgram`; the daemon links no HTTP code).
struct Web: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serve the installer's console: the live view, reads, health and controls in a browser (the config's web section).",
        discussion: "Options: --config FILE, --log-level LEVEL. docs/console.md has the security model."
    )

    @Argument(parsing: .captureForPassthrough, help: "Passed to kiosk-scanner-web: --config FILE, --log-level LEVEL.")
    var arguments: [String] = []

    func run() throws {
        HelperProgram.execute("kiosk-scanner-web", arguments: arguments)
    }
}
