/// The whole configuration of the scanner, as read from `/etc/kiosk-scanner/kiosk-scanner.conf`.
///
/// Every field has the default that the shipped config file documents; a file only overrides.
public struct ScannerConfig: Sendable, Hashable {
    public var scanner = ScanningConfig()
    public var camera = CameraConfig()
    public var viewport = Viewport.standard
    public var decoder = DecoderConfig()
    public var tracking = TrackingConfig()
    public var pack = PackConfig()
    public var gating = GatingConfig()
    public var socket = SocketConfig()
    public var metrics = MetricsConfig()
    public var gpio = GPIOConfig()
    /// Outputs besides the socket; every read goes to each.
    public var outputs: [OutputConfig] = []
    /// The MQTT bridge's settings (the daemon itself has no network code and ignores them).
    public var mqtt = MQTTConfig()
    /// Kiosk documents: which fields of a licence or a boarding pass consumers get (`id:`, `boarding_pass:`).
    public var documents = DocumentsConfig()

    public init() {}
}

/// Metrics beyond the socket's `metrics` command: a node_exporter textfile.
public struct MetricsConfig: Sendable, Hashable {
    /// Where to write the counters in Prometheus text format (written to a temporary file, then
    /// renamed); nil writes none.
    public var textfile: String?
    /// Seconds between writes.
    public var intervalSeconds = 15.0

    public init() {}
}

/// How scanning runs: continuously or per trigger, and the torch.
public struct ScanningConfig: Sendable, Hashable {
    /// `presentation`: scan continuously. `trigger`: scan from a trigger until the first read or the timeout.
    public var mode = ReadMode.presentation
    /// Seconds a trigger session lasts without a read.
    public var triggerTimeoutSeconds = 5.0
    /// `off`, `on`, or `auto` (on while scanning is active).
    public var torch = TorchMode.auto
    /// Seconds without a frame from a streaming camera before it counts as interrupted and is reopened.
    public var stallSeconds = 5.0

    public init() {}
}

/// What the torch does: always off, always on, or on while scanning is active.
public enum TorchMode: String, Sendable, Hashable, CaseIterable, Codable {
    case off, on, auto
}

/// How scanning is started: continuously, or a session per trigger (button or `trigger` command).
public enum ReadMode: String, Sendable, Hashable, CaseIterable, Codable {
    case presentation, trigger
}

/// Where frames come from and how they are asked for.
public struct CameraConfig: Sendable, Hashable {
    /// A device path (`/dev/video0`, `/dev/v4l/by-id/...`), `auto` for the first capture device,
    /// `libcamera` (its first camera) or `libcamera:ID`, or `replay:DIR` to play a directory of images.
    public var device = "auto"
    public var width = 640
    public var height = 480
    public var fps = 30
    /// Controls by name: V4L2's as `v4l2-ctl --list-ctrls` prints them (`focus_absolute: 0`,
    /// whole numbers), or libcamera's for a libcamera camera (`ExposureTime: 8000`, `AnalogueGain: 2.5`).
    public var controls: [String: Double] = [:]
    /// libcamera cameras only: how the lens focuses (`AfMode`).
    public var autofocus = Autofocus.continuous
    /// libcamera cameras only: the lens position in dioptres (1/metres; 0 is infinity) for
    /// `autofocus: manual`; nil leaves the lens where it is.
    public var lensPosition: Double?

    /// For `libcamera` or `libcamera:ID`, the camera's id ("" for the first camera); nil for any other device.
    public var libcameraID: String? { Self.libcameraID(of: device) }

    /// The libcamera camera id a `camera.device` setting names, as `libcameraID`.
    public static func libcameraID(of device: String) -> String? {
        if device == "libcamera" { return "" }
        return device.hasPrefix("libcamera:") ? String(device.dropFirst("libcamera:".count)) : nil
    }

    public enum Autofocus: String, Sendable, Hashable, CaseIterable {
        /// Continuous autofocus where the camera has it; a fixed-focus camera is left as it is.
        case continuous
        /// One focus sweep when streaming starts.
        case auto
        /// The lens at `lens_position`.
        case manual
        /// Nothing set: the camera's own default.
        case off
    }

    public init() {}
}

/// Which library decodes: ZBar, zxing-cpp, or both (each symbology routed to one of them).
public enum DecoderEngine: String, Sendable, Hashable, CaseIterable {
    case zbar, zxing, both

    /// The engine of the daemon and of `scan` when none is named.
    public static let standard = DecoderEngine.both

    /// Symbologies only zxing-cpp reads (`Symbology.readers`).
    public static let zxingOnly = Set(Symbology.allCases.filter { $0.readers == [.zxing] })

    /// Symbologies only ZBar reads here (`Symbology.readers`).
    public static let zbarOnly = Set(Symbology.allCases.filter { $0.readers == [.zbar] })

    /// Why this engine cannot read all of `symbologies`, or nil when it can: the one check the
    /// config parser and the decoders make, with one message.
    public func refusal(for symbologies: Set<Symbology>) -> String? {
        func names(_ set: Set<Symbology>) -> String { set.map(\.rawValue).sorted().joined(separator: ", ") }
        switch self {
        case .both:
            return nil
        case .zbar:
            let refused = symbologies.filter { !$0.readers.contains(.zbar) }
            return refused.isEmpty ? nil : "ZBar cannot read \(names(refused)): set decoder.engine to both (or zxing)"
        case .zxing:
            let refused = symbologies.filter { !$0.readers.contains(.zxing) }
            return refused.isEmpty
                ? nil
                : "\(names(refused)) are read by ZBar only (zxing-cpp gives ISBN and EAN add-ons no symbology of their own): set decoder.engine to both"
        }
    }

    /// What is read when the config names no symbologies: ZBar's defaults, and what the engine
    /// adds or cannot read.
    public var defaultSymbologies: Set<Symbology> {
        switch self {
        case .zbar: Set(Symbology.zbarDefaults)
        case .both: Set(Symbology.zbarDefaults).union(Self.zxingOnly)
        case .zxing: Set(Symbology.zbarDefaults).union(Self.zxingOnly).subtracting(Self.zbarOnly)
        }
    }
}

/// Which decoder reads which symbologies.
public struct DecoderConfig: Sendable, Hashable {
    /// The library, or both: `both` by default, which reads the most (README, "Two decoders").
    public var engine = DecoderEngine.standard
    /// The symbologies looked for.
    public var symbologies: Set<Symbology> = DecoderEngine.standard.defaultSymbologies
    /// Minimum and maximum data lengths per symbology, where set.
    public var lengths: [Symbology: LengthLimit] = [:]
    /// Extra passes tried on a frame where the first found nothing.
    public var preprocessing: Set<Preprocessing> = Preprocessing.defaults

    public init() {}
}

/// A second look at a frame where the first pass found nothing (so it costs nothing once a code is read).
public enum Preprocessing: String, Sendable, Hashable, CaseIterable {
    /// ZBar again on the inverted image: light codes on a dark ground (phone screens in dark mode).
    case inverted
    /// ZBar again at half size: codes too large or too blurred for the full frame.
    case secondScale = "second-scale"
    /// zxing-cpp again with its global-histogram binarizer: uneven light, low contrast.
    case binarizer

    /// Chosen from the accuracy and frame-cost benchmarks (README, "Two decoders").
    public static let defaults: Set<Preprocessing> = [.inverted, .secondScale, .binarizer]
}

/// Bounds on the number of characters a code may carry, to reject partial reads.
public struct LengthLimit: Sendable, Hashable {
    public var min: Int?
    public var max: Int?
    public init(min: Int? = nil, max: Int? = nil) {
        self.min = min
        self.max = max
    }
}

/// When a code that stays in view is reported again.
public struct TrackingConfig: Sendable, Hashable {
    /// A code must be out of view this long before it counts as new.
    public var absenceSeconds = 0.5
    /// A code in view is reported again after this long; 0 means never while it stays in view.
    public var sameCodeTimeoutSeconds = 0.0

    public init() {}
}

/// The UNIX socket a POS application connects to.
public struct SocketConfig: Sendable, Hashable {
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Newline-delimited JSON events.
        case json
        /// One code's text per line, for shell scripts.
        case plain
    }

    public var path = "/run/kiosk-scanner/scan.sock"
    /// File mode of the socket, e.g. 0o660.
    public var mode = 0o660
    /// Group that owns the socket, or nil to keep the daemon's.
    public var group: String?
    public var format = Format.json
    /// Reads held while no client is connected, delivered on the next connect.
    public var holdCount = 16
    /// Held reads older than this are dropped (and counted) instead of delivered.
    public var holdSeconds = 10.0
    /// Bytes queued for a client that does not read before it is disconnected.
    public var clientBufferBytes = 256 * 1024
    /// Clients connected at once; one more is told so and closed. Also kept below the descriptor limit.
    public var maxClients = 64
    /// Bytes queued for all clients together; past it the client with the longest queue is cut off.
    public var maxQueuedBytes = 8 << 20
    /// A client consumes scans (reads are written to it) once it sends `subscribe`, or once it has
    /// been connected this long without sending `unsubscribe` (what the CLI's tools send first).
    public var consumerAfterSeconds = 0.5
    /// The group (besides root) whose members may send control commands and see camera images.
    public var controlGroup: String?
    /// Whether `snapshot` and `record` may show camera images at all.
    public var images = true
    /// GTIN options and rules for the data the socket sends: the plain line, and `formatted` in JSON.
    public var formatting = Formatting()
    /// Whether a read is delivered when a consumer read it, or only when a consumer acked it.
    public var acknowledge = Acknowledge.none
    /// With `acknowledge: required`, how long a consumer has to ack a read written to it.
    public var ackTimeoutSeconds = 2.0
    /// How long a read written to consumers may stay unread by all of them before it is held again
    /// (or goes to the next consumer).
    public var readTimeoutSeconds = 2.0
    /// The group (besides root) whose members may consume scans; nil: anyone who can open the socket.
    public var consumerGroup: String?

    /// When a read written to a consumer counts as delivered.
    public enum Acknowledge: String, Sendable, Hashable, CaseIterable {
        /// Once the consumer's process has read its line (the kernel's unread count for the socket).
        case none
        /// Once the consumer answered `ack SEQ`.
        case required
    }
    /// Control characters in the data the socket sends: kept by default, since socket clients are
    /// programs that take the data as it was encoded (JSON escapes them in any case).
    public var controlCharacters = ControlCharacters.keep

    public init() {}
}

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
