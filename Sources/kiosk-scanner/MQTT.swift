import ArgumentParser

/// `kiosk-scanner mqtt`: runs the MQTT bridge, `kiosk-scanner-mqtt` (a program of its own:
/// `HelperProgram`).
struct MQTT: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt",
        abstract: "Bridge reads, state and commands to an MQTT broker (the config's mqtt section).",
        discussion: "Options: --config FILE, --log-level LEVEL. docs/mqtt.md has the topics."
    )

    @Argument(parsing: .captureForPassthrough, help: "Passed to kiosk-scanner-mqtt: --config FILE, --log-level LEVEL.")
    var arguments: [String] = []

    func run() throws {
        HelperProgram.execute("kiosk-scanner-mqtt", arguments: arguments)
    }
}
