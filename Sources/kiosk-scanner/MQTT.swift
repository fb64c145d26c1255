import ArgumentParser
import Glibc

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
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        let directory = length > 0 ? String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let beside = (directory.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")) + "/kiosk-scanner-mqtt"
        let candidates: [String] = [beside, "/usr/lib/kiosk-scanner/kiosk-scanner-mqtt"]
        let bridge = candidates.first { access($0, X_OK) == 0 } ?? beside
        let argv = ([bridge] + arguments).map { strdup($0) } + [nil]
        execv(bridge, argv)
        Scan.fail("cannot run \(bridge): \(String(cString: strerror(errno)))")
        throw ExitCode(2)
    }
}
