import ConfigFile
import ConfigReading
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

    /// Each bad file names the line and the key that is wrong.
    @Test(arguments: BadConfig.mqtt) func errorsNameLineAndKey(_ file: BadConfig) { file.expectRefused() }
}
