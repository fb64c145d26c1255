import ArgumentParser
import FoundationEssentials
import Platform

/// `kiosk-scanner mqtt`: runs the MQTT bridge, `kiosk-scanner-mqtt`: beside this binary (a build
/// tree), else where the package puts it, /usr/lib/kiosk-scanner. It is a program of its own so
/// that the capture daemon links no network code (and keeps PrivateNetwork=yes); this command
/// only finds it.
struct MQTT: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt",
        abstract: "Bridge reads, state and commands to an MQTT broker (the config's mqtt section).",
        discussion: "Options: --config FILE, --log-level LEVEL. docs/mqtt.md has the topics."
    )

    @Argument(parsing: .captureForPassthrough, help: "Passed to kiosk-scanner-mqtt: --config FILE, --log-level LEVEL.")
    var arguments: [String] = []

    func run() throws {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let beside = (executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")) + "/kiosk-scanner-mqtt"
        let candidates: [String] = [beside, "/usr/lib/kiosk-scanner/kiosk-scanner-mqtt"]
        let bridge = candidates.first(where: FileSystem.isExecutable) ?? beside
        let error = CurrentProcess.execute(bridge, arguments: [bridge] + arguments)
        Scan.fail("cannot run \(bridge): \(error.description)")
        throw ExitCode(2)
    }
}
