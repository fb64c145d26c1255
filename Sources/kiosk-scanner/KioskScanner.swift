import ArgumentParser

/// The `kiosk-scanner` command: the daemon and the tools around it.
@main
struct KioskScanner: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk-scanner",
        abstract: "A barcode scanner daemon for a camera, an LED and a buzzer on a small Linux board.",
        subcommands: [Run.self, Scan.self, CheckConfig.self, Listen.self, Status.self, Snapshot.self, Record.self, GPIOTest.self]
    )
}
