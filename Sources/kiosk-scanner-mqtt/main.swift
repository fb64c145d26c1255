import Bridge
import ConfigReading
import Logging
import Platform

// kiosk-scanner-mqtt [--config FILE]: the MQTT bridge, a program of its own so that the capture
// daemon links no network code. `kiosk-scanner mqtt` runs it.

func main() {
    let commandLine = HelperCommandLine(name: "mqtt")
    let logger = Logger(label: "kiosk-scanner-mqtt")
    let bridge: Bridge
    do {
        let config = try commandLine.config()
        bridge = try Bridge(settings: MQTTSettings(config, file: commandLine.configPath), logger: logger)
    } catch {
        commandLine.fail("\(error)")
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
