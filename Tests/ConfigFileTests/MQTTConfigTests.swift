import ConfigFile
import Testing

/// The `mqtt` section, which the bridge reads from the daemon's own config file.
@Suite struct MQTTConfigTests {
    @Test func readsEveryKey() throws {
        let config = try ConfigFile.parse(
            """
            mqtt:
              host: broker.lan
              port: 8883
              device_id: lane-3
              topic_prefix: shop/12/scanners
              qos: 0
              username: lane-3
              password_file: /etc/kiosk-scanner/mqtt-password
              ca_file: /etc/kiosk-scanner/ca.pem
              cert_file: /etc/kiosk-scanner/lane.pem
              key_file: /etc/kiosk-scanner/lane.key
              keepalive: 60
              commands: [status, torch]
              home_assistant: true
              spool_dir: /var/lib/kiosk-scanner/spool
              spool_size: 65536
              metrics_textfile: /var/lib/node-exporter/mqtt.prom
            """, file: "m.conf")
        let mqtt = config.mqtt
        #expect(mqtt.host == "broker.lan" && mqtt.port == 8883 && mqtt.deviceID == "lane-3" && mqtt.topicPrefix == "shop/12/scanners")
        #expect(mqtt.qos == 0 && mqtt.username == "lane-3" && mqtt.passwordFile == "/etc/kiosk-scanner/mqtt-password")
        #expect(mqtt.caFile == "/etc/kiosk-scanner/ca.pem" && mqtt.certFile == "/etc/kiosk-scanner/lane.pem" && mqtt.keyFile == "/etc/kiosk-scanner/lane.key")
        #expect(mqtt.keepaliveSeconds == 60 && mqtt.commands == ["status", "torch"] && mqtt.homeAssistant)
        #expect(mqtt.spoolDirectory == "/var/lib/kiosk-scanner/spool" && mqtt.spoolBytes == 65536)
        #expect(mqtt.metricsTextfile == "/var/lib/node-exporter/mqtt.prom")
        #expect(try ConfigFile.parse("", file: "e.conf").mqtt == MQTTConfig(), "no section: the defaults, and no broker")
    }

    @Test(
        arguments: [
            ("mqtt:\n  host: \"broker lan\"\n", 2, "mqtt.host", "host name"),
            ("mqtt:\n  port: 70000\n", 2, "mqtt.port", "out of range"),
            ("mqtt:\n  device_id: lane/3\n", 2, "mqtt.device_id", "topic level"),
            ("mqtt:\n  topic_prefix: shop/#\n", 2, "mqtt.topic_prefix", "not a topic prefix"),
            ("mqtt:\n  qos: 2\n", 2, "mqtt.qos", "out of range"),
            ("mqtt:\n  password_file: secret.txt\n", 2, "mqtt.password_file", "absolute path"),
            ("mqtt:\n  commands: [status, snapshot]\n", 2, "mqtt.commands[1]", "is not one of"),
            ("mqtt:\n  host: b\n  cert_file: /c.pem\n", 2, "mqtt", "go together"),
            ("mqtt:\n  home_assistant: yes\n", 2, "mqtt.home_assistant", "true or false"),
            ("mqtt:\n  spool_size: 10\n", 2, "mqtt.spool_size", "out of range"),
            ("mqtt:\n  broker: b\n", 2, "mqtt.broker", "unknown key"),
        ] as [(String, Int, String, String)])
    func errorsNameLineAndKey(text: String, line: Int, key: String, reason: String) {
        expectConfigError(text, line: line, key: key, reason: reason)
    }
}
