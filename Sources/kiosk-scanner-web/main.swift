import ConfigReading
import Console
import Logging
import Platform

// kiosk-scanner-web [--config FILE] [--log-level LEVEL]: the installer's console, a program of
// its own so that the capture daemon links no HTTP code. `kiosk-scanner web` runs it.

func main() async {
    let commandLine = HelperCommandLine(name: "web")
    let console: Console
    do {
        let config = try commandLine.config()
        console = try Console(settings: ConsoleSettings(config), logger: Logger(label: "kiosk-scanner-web"))
    } catch {
        commandLine.fail("\(error)")
    }
    Signals.ignoreBrokenPipe()
    do {
        try await console.run()
    } catch {
        commandLine.fail("\(error)", status: 1)
    }
}

await main()
