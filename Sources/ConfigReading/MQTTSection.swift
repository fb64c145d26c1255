/// The `mqtt` section: the bridge's broker, identity, topics, TLS and spool.
extension MQTTConfig {
    /// Reads the `mqtt` section; every key it does not know is an error.
    package init(_ section: inout Section) throws(ConfigError) {
        var mqtt = MQTTConfig()
        if let value = section.value("host") {
            let host = try value.string()
            guard !host.isEmpty, !host.contains(" "), !host.contains("/") else { throw value.error("expected a host name or address, e.g. broker.lan") }
            mqtt.host = host
        }
        if let value = section.value("port") { mqtt.port = try value.int(in: 1...65535) }
        if let value = section.value("device_id") {
            let id = try value.string()
            guard Self.isTopicLevel(id) else { throw value.error("'\(id)' cannot be one MQTT topic level (no /, +, # or spaces; not empty)") }
            mqtt.deviceID = id
        }
        if let value = section.value("topic_prefix") {
            let prefix = try value.string()
            guard !prefix.isEmpty, prefix.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ Self.isTopicLevel(String($0)) }) else {
                throw value.error("'\(prefix)' is not a topic prefix (levels separated by /, without + # or spaces)")
            }
            mqtt.topicPrefix = prefix
        }
        if let value = section.value("qos") { mqtt.qos = try value.int(in: 0...1) }
        if let value = section.value("username") { mqtt.username = try value.string() }
        if let value = section.value("password_file") { mqtt.passwordFile = try value.absolutePath() }
        if let value = section.value("ca_file") { mqtt.caFile = try value.absolutePath() }
        if let value = section.value("cert_file") { mqtt.certFile = try value.absolutePath() }
        if let value = section.value("key_file") { mqtt.keyFile = try value.absolutePath() }
        if (mqtt.certFile == nil) != (mqtt.keyFile == nil) {
            throw section.error("cert_file and key_file go together (a client certificate and its key)")
        }
        if mqtt.certFile != nil && mqtt.caFile == nil { throw section.error("a client certificate needs TLS: set ca_file too") }
        if let value = section.value("keepalive") { mqtt.keepaliveSeconds = try value.int(in: 5...3600) }
        if let value = section.value("commands") {
            var commands: Set<String> = []
            for item in try value.optionalItems() {
                let name = try item.string()
                guard MQTTConfig.allowedCommands.contains(name) else {
                    throw item.error("'\(name)' is not one of \(MQTTConfig.allowedCommands.sorted().joined(separator: ", "))")
                }
                commands.insert(name)
            }
            mqtt.commands = commands
        }
        if let value = section.value("home_assistant") { mqtt.homeAssistant = try value.bool() }
        if let value = section.value("spool_dir") { mqtt.spoolDirectory = try value.absolutePath() }
        if let value = section.value("spool_size") { mqtt.spoolBytes = try value.int(in: 4096...(1 << 30)) }
        if let value = section.value("metrics_textfile") { mqtt.metricsTextfile = try value.textfilePath() }
        try section.finish()
        self = mqtt
    }

    /// Whether `text` can stand as one level of an MQTT topic.
    private static func isTopicLevel(_ text: String) -> Bool {
        !text.isEmpty && !text.contains(where: { "/+# ".contains($0) || $0.isNewline })
    }
}
