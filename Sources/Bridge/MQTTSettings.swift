import ConfigReading
import FoundationEssentials
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The bridge's settings, resolved from the config file: the password read from its file and the
/// device id chosen, so that a mistake shows at start, not at the first connect.
public struct MQTTSettings: Sendable {
    public let host: String
    public let port: Int
    public let keepalive: Int
    public let qos: Int
    public let username: String?
    public let password: String?
    public let caFile: String?
    public let certFile: String?
    public let keyFile: String?
    public let deviceID: String
    public let commands: Set<String>
    public let homeAssistant: Bool
    public let spoolDirectory: String
    public let spoolBytes: Int
    public let metricsTextfile: String?
    /// The daemon's socket.
    public let socketPath: String
    /// `PREFIX/DEVICE`: every topic of this scanner starts with it.
    public let base: String

    public init(_ config: ClientConfig, file: String) throws(BridgeError) {
        let mqtt = config.mqtt
        guard let host = mqtt.host else { throw BridgeError("\(file): mqtt.host is not set: name the broker (e.g. mqtt: { host: broker.lan })") }
        self.host = host
        port = mqtt.port
        keepalive = mqtt.keepaliveSeconds
        qos = mqtt.qos
        username = mqtt.username
        if let passwordFile = mqtt.passwordFile {
            guard let text = Self.contents(passwordFile) else {
                throw BridgeError("\(file): mqtt.password_file \(passwordFile): \(String(cString: strerror(errno)))")
            }
            // The first line: an editor's final newline is no part of the password.
            password = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        } else {
            password = nil
        }
        for (key, path) in [("ca_file", mqtt.caFile), ("cert_file", mqtt.certFile), ("key_file", mqtt.keyFile)] {
            if let path, access(path, R_OK) != 0 {
                throw BridgeError("\(file): mqtt.\(key) \(path): \(String(cString: strerror(errno)))")
            }
        }
        caFile = mqtt.caFile
        certFile = mqtt.certFile
        keyFile = mqtt.keyFile
        deviceID = mqtt.deviceID ?? Self.machineID() ?? Self.hostName()
        commands = mqtt.commands
        homeAssistant = mqtt.homeAssistant
        spoolDirectory = Self.spoolDirectory(configured: mqtt.spoolDirectory, environment: ProcessInfo.processInfo.environment, userID: geteuid())
        spoolBytes = mqtt.spoolBytes
        metricsTextfile = mqtt.metricsTextfile
        socketPath = config.socket.path
        base = "\(mqtt.topicPrefix)/\(deviceID)"
        guard config.socket.format == .json else {
            throw BridgeError("\(file): socket.format is plain; the bridge reads the daemon's JSON events (set socket.format: json)")
        }
    }

    /// Where the spool goes: `configured`, unless it is the default (no `spool_dir` in the config),
    /// which is chosen where a Linux program keeps its state. Under systemd, in the unit's
    /// `StateDirectory=` (`$STATE_DIRECTORY`); run by hand as root, in /var/lib/kiosk-scanner; run by
    /// hand as another user, who cannot create that, in the user's own state directory
    /// (`$XDG_STATE_HOME`, else ~/.local/state, as the XDG Base Directory spec says). The config
    /// keeps no mark of a key left out, so a `spool_dir` naming the default itself counts as unset.
    static func spoolDirectory(configured: String, environment: [String: String], userID: uid_t) -> String {
        guard configured == MQTTConfig().spoolDirectory else { return configured }
        // systemd separates several state directories with colons; the XDG spec ignores a relative path.
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, state.hasPrefix("/") { return "\(state)/mqtt-spool" }
        if userID == 0 { return configured }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return "\(state)/kiosk-scanner/mqtt-spool" }
        if let home = environment["HOME"], home.hasPrefix("/") { return "\(home)/.local/state/kiosk-scanner/mqtt-spool" }
        return configured
    }

    /// /etc/machine-id, the systemd machine id: stable across reboots and unique per installation.
    static func machineID() -> String? {
        guard let text = contents("/etc/machine-id")?.prefix(while: \.isHexDigit), text.count == 32 else { return nil }
        return String(text)
    }

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count)
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func contents(_ path: String) -> String? {
        readFile(path).map { String(decoding: $0, as: UTF8.self) }
    }
}
