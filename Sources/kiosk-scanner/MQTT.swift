import ArgumentParser

/// `kiosk-scanner mqtt`: runs the MQTT bridge, `kiosk-scanner-mqtt`.
struct MQTT: HelperCommand {
    static let configuration = HelperProgram.command(
        "mqtt", abstract: "Bridge reads, state and commands to an MQTT broker (the config's mqtt section).", page: "docs/mqtt.md has the topics.")
    @Argument(parsing: .captureForPassthrough, help: "Passed to kiosk-scanner-mqtt: --config FILE, --log-level LEVEL.") var arguments: [String] = []
}
