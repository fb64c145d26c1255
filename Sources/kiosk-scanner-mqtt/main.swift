import Bridge
import ConfigReading
import Logging
import Platform
import SystemPackage

// kiosk-scanner-mqtt [--config FILE]: the MQTT bridge, a program of its own so that the capture
// daemon links no network code. `kiosk-scanner mqtt` runs it.

/// Writes `text` and a newline to standard error and exits with `status`.
func fail(_ text: String, status: Int32 = 2) -> Never {
    _ = try? FileDescriptor.standardError.writeAll((text + "\n").utf8)
    CurrentProcess.exit(status)
}

func main() {
    let usage = "usage: kiosk-scanner mqtt [--config FILE] [--log-level trace|debug|info|notice|warning|error]"
    var configPath = ConfigText.defaultPath
    var level = Logger.Level.info
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--config":
            guard let path = arguments.popFirst() else { fail(usage) }
            configPath = path
        case "--log-level":
            guard let name = arguments.popFirst(), let parsed = Logger.Level(rawValue: name) else { fail(usage) }
            level = parsed
        case "-h", "--help":
            print(usage)
            CurrentProcess.exit(0)
        default:
            fail("kiosk-scanner mqtt: unknown argument '\(argument)'\n\(usage)")
        }
    }
    let chosen = level
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = chosen
        return handler
    }
    let logger = Logger(label: "kiosk-scanner-mqtt")
    let bridge: Bridge
    do {
        let config = try ClientConfig.load(path: configPath)
        bridge = try Bridge(settings: MQTTSettings(config, file: configPath), logger: logger)
    } catch {
        fail("kiosk-scanner mqtt: \(error)")
    }
    // SIGTERM and SIGINT end the bridge: it says offline and disconnects. They are blocked in
    // every thread and taken by sigwait, which works whatever mask the bridge was started with (a
    // parent's worker thread may pass all signals blocked).
    let stopSignals = Signals.blockTermination()
    Signals.ignoreBrokenPipe()
    OwnThread.start(name: "signals") {
        stopSignals.wait()
        bridge.stop()
    }
    logger.info("bridging \(bridge.settings.socketPath) to \(bridge.settings.host):\(bridge.settings.port) as \(bridge.settings.base)")
    bridge.run()
    logger.info("stopped")
}

main()
