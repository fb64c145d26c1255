import ArgumentParser

/// The `kiosk-scanner` command: the daemon and the tools around it.
@main
struct KioskScanner: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk-scanner",
        abstract: "A barcode scanner daemon for a camera, an LED and a buzzer on a small Linux board.",
        version: KioskScanner.version,
        subcommands: [
            Run.self, Scan.self, CheckConfig.self, Listen.self, Status.self, Snapshot.self, Record.self, GPIOTest.self, MQTT.self, Web.self, Layout.self,
            HIDPOSListen.self,
        ]
    )

    /// The release, as `--version` and the Debian package give it.
    static let version = "0.1.0"
}
