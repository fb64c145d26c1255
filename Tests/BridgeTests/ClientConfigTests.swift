import ConfigReading
import ScannerProtocol
import Testing

/// What the helper programs read of the daemon's config file: the socket's path and format and
/// their own section, with the same FILE:LINE: KEY errors; the daemon's sections are not theirs.
@Suite struct ClientConfigTests {
    @Test func readsTheSocketAndMQTTAndLeavesTheDaemonsSectionsToIt() throws {
        let config = try ClientConfig.parse(
            """
            camera:
              fps: 9999
              colour: red
            outputs: [{type: warp-drive}]
            socket:
              path: /run/lane-3/scan.sock
              format: plain
              hold_count: not a number
            mqtt:
              host: broker.lan
              qos: 0
            """, file: "c.conf")
        #expect(config.socket.path == "/run/lane-3/scan.sock" && config.socket.format == .plain)
        #expect(config.mqtt.host == "broker.lan" && config.mqtt.qos == 0)
        #expect(try ClientConfig.parse("", file: "e.conf") == ClientConfig(), "no file content: the defaults")
        #expect(ClientConfig().socket.path == SocketConfig().path, "the daemon's default socket")
    }

    @Test(arguments: [
        ("socket:\n  path: run/scan.sock\n", "b.conf:2: socket.path: must be an absolute path shorter than 108 bytes"),
        ("socket:\n  format: xml\n", "b.conf:2: socket.format: 'xml' is not one of json, plain"),
        ("mqtt:\n  host: broker.lan\n  colour: red\n", "b.conf:3: mqtt.colour: unknown key"),
        ("mqtt:\n  port: 0\n", "b.conf:2: mqtt.port: 0 is out of range 1...65535"),
        ("socket: [1\n", "b.conf:2: YAML syntax"),
    ])
    func errorsNameLineAndKey(_ text: String, _ expected: String) {
        let error = #expect(throws: ConfigError.self) { try ClientConfig.parse(text, file: "b.conf") }
        #expect(error?.description.hasPrefix(expected) == true, "\(String(describing: error))")
    }
}
