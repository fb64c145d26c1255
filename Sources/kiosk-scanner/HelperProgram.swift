import ArgumentParser
import FoundationEssentials
import Platform

/// The daemon's helper programs (the MQTT bridge, the installer's console): each a binary of its
/// own, so that the capture daemon links no network code and keeps PrivateNetwork=yes; the
/// subcommand that starts one only finds it and runs it in its place.
enum HelperProgram {
    /// Runs `name`: beside this binary (a build tree), else where the package puts it,
    /// /usr/lib/kiosk-scanner. Returns only if it could not be run.
    static func execute(_ name: String, arguments: [String]) -> Never {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let beside = (executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")) + "/" + name
        let candidates: [String] = [beside, "/usr/lib/kiosk-scanner/" + name]
        let program = candidates.first(where: FileSystem.isExecutable) ?? beside
        let error = CurrentProcess.execute(program, arguments: [program] + arguments)
        Scan.fail("cannot run \(program): \(error.description)")
        CurrentProcess.exit(2)
    }

    /// The subcommand that runs helper `name` (`kiosk-scanner-NAME`), whose options `page` explains.
    static func command(_ name: String, abstract: String, page: String) -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract, discussion: "Options: --config FILE, --log-level LEVEL. \(page)")
    }
}

/// A subcommand that runs a helper program in its place, with the arguments it was given.
protocol HelperCommand: ParsableCommand {
    var arguments: [String] { get }
}

extension HelperCommand {
    func run() throws {
        HelperProgram.execute("kiosk-scanner-\(Self.configuration.commandName ?? "")", arguments: arguments)
    }
}
