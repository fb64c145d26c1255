import ScannerProtocol

/// What the daemon's helper programs read of the shared config file: where the daemon's socket
/// is and how it speaks, and their own sections. The daemon's sections (camera, decoder, outputs
/// and the rest) are not theirs to check: `kiosk-scanner check-config` and the daemon do that,
/// and a helper that read them would link every library the daemon links.
public struct ClientConfig: Sendable, Hashable {
    /// The daemon's socket: `socket.path` and `socket.format` read, the rest left at defaults.
    public var socket = SocketConfig()
    /// The `mqtt` section, for the MQTT bridge.
    public var mqtt = MQTTConfig()
    /// The `web` section, for the installer's console.
    public var web = WebConfig()

    public init() {}

    /// Reads config `text`; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> ClientConfig {
        var top = try ConfigText.top(text, file: file)
        var config = ClientConfig()
        var socket = try top.section("socket")
        if let value = socket.value("path") { config.socket.path = try value.socketPath() }
        if let value = socket.value("format") { config.socket.format = try value.choice(SocketConfig.Format.self) }
        var mqtt = try top.section("mqtt")
        config.mqtt = try MQTTConfig(&mqtt)
        var web = try top.section("web")
        config.web = try WebConfig(&web)
        return config
    }
}
