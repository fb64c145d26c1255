import ArgumentParser
import ConfigFile
import Feedback
import FoundationEssentials

/// `kiosk-scanner gpio-test`: lists the GPIO chips and drives each configured line, for checking the wiring.
struct GPIOTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpio-test",
        abstract: "List the GPIO chips and lines, then flash, beep and light each configured line and wait for the trigger button.",
        discussion: "Stop the daemon first (systemctl stop kiosk-scanner): a line can have one user at a time."
    )

    @OptionGroup var configFile: ConfigOption

    @Flag(help: "Only list the chips and lines.")
    var list = false

    @Option(help: "Seconds to wait for a trigger button press.")
    var buttonSeconds = 10.0

    func run() throws {
        print(WiringCheck.library)
        let chips = WiringCheck.chips()
        if chips.isEmpty { print("no GPIO chips at /dev/gpiochip*") }
        for chip in chips {
            print("\(chip.path): \(chip.name) [\(chip.label)] \(chip.lines.count) lines")
            for line in chip.lines where !line.name.isEmpty || line.used {
                print(
                    "  line \(line.offset): \(line.name.isEmpty ? "unnamed" : line.name)\(line.used ? "  used by \(line.consumer.isEmpty ? "?" : line.consumer)" : "")"
                )
            }
        }
        if list { return }
        let settings: ScannerConfig
        do {
            settings = try ConfigFile.load(path: configFile.config)
        } catch {
            Scan.fail("\(error)")
            throw ExitCode(2)
        }
        guard !settings.gpio.isEmpty else {
            print("\(configFile.config): no gpio lines configured (see the gpio section of the shipped config)")
            return
        }
        let ok = WiringCheck.run(settings.gpio, buttonSeconds: buttonSeconds) { print($0) }
        if !ok { throw ExitCode(1) }
    }
}
