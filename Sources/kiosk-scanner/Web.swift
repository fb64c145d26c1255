import ArgumentParser

/// `kiosk-scanner web`: runs the installer's console, `kiosk-scanner-web` (the daemon links no HTTP code).
struct Web: HelperCommand {
    static let configuration = HelperProgram.command(
        "web", abstract: "Serve the installer's console: the live view, reads, health and controls in a browser (the config's web section).",
        page: "docs/console.md has the security model.")
    @Argument(parsing: .captureForPassthrough, help: "Passed to kiosk-scanner-web: --config FILE, --log-level LEVEL.") var arguments: [String] = []
}
