/// The MQTT bridge (`kiosk-scanner mqtt`): the broker it connects to, and what it publishes.
public struct MQTTConfig: Sendable, Hashable {
    /// The broker; nil until the config names one (the bridge refuses to start without it).
    public var host: String?
    public var port = 1883
    /// This scanner's name in topics; nil: the machine id (/etc/machine-id), else the host name.
    public var deviceID: String?
    public var topicPrefix = "kiosk-scanner"
    /// 0 or 1. Reads wait in the spool until the broker acknowledged them (1) or was handed them (0).
    public var qos = 1
    public var username: String?
    /// A file holding the password (the config file may be world-readable; this one need not be).
    public var passwordFile: String?
    /// TLS: the CA that signed the broker's certificate; with cert and key files, a client certificate.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var keepaliveSeconds = 30
    /// Socket commands the broker may send on `PREFIX/DEVICE/cmd`; none by default.
    public var commands: Set<String> = []
    /// Publish Home Assistant MQTT discovery for the scan sensor, the torch switch and availability.
    public var homeAssistant = false
    /// Where reads wait for the broker, kept across restarts.
    public var spoolDirectory = "/var/lib/kiosk-scanner/mqtt-spool"
    /// Past this many bytes of waiting reads, the oldest are dropped and counted.
    public var spoolBytes = 4 << 20
    /// Where the bridge writes its counters for node_exporter; nil writes none.
    public var metricsTextfile: String?

    public init() {}

    /// The socket commands a broker may be allowed to send: no camera images over the network.
    public static let allowedCommands: Set<String> = ["status", "metrics", "pause", "resume", "trigger", "torch", "beep"]
}
