import Capture
import Codes
import ConfigReading
import Decoding
import Documents
import Imaging
import ReadPipeline
import ScannerProtocol
import SystemPackage

/// Reads the YAML config file into a validated `ScannerConfig`.
public enum ConfigFile {
    /// Where the daemon looks when no path is given.
    public static let defaultPath = ConfigText.defaultPath

    /// Reads and validates the file at `path`.
    public static func load(path: String) throws(ConfigError) -> ScannerConfig {
        try parse(try ConfigText.read(path: path), file: path)
    }

    /// Parses config text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> ScannerConfig {
        var top = try ConfigText.top(text, file: file)
        var config = ScannerConfig()
        var scanner = try top.section("scanner")
        try readScanner(&scanner, into: &config.scanner)
        var camera = try top.section("camera")
        try readCamera(&camera, into: &config.camera)
        if let viewport = top.value("viewport") { config.pipeline.viewport = try Viewport(viewport) }
        var decoder = try top.section("decoder")
        try readDecoder(&decoder, into: &config.pipeline.decoder)
        var tracking = try top.section("tracking")
        try readTracking(&tracking, into: &config.pipeline.tracking)
        var pack = try top.section("pack")
        try readPack(&pack, into: &config.pipeline.pack)
        var gating = try top.section("gating")
        try readGating(&gating, into: &config.pipeline.gating)
        // Before the socket and the outputs, whose id_template rules name the documents' fields.
        try readDocuments(&top, into: &config.pipeline.documents)
        var socket = try top.section("socket")
        try readSocket(&socket, into: &config.socket, documents: config.pipeline.documents)
        var metrics = try top.section("metrics")
        try readMetrics(&metrics, into: &config.metrics)
        var gpio = try top.section("gpio")
        try readGPIO(&gpio, into: &config.gpio)
        var feedback = try top.section("feedback")
        try readFeedback(&feedback, into: &config.gpio, acknowledge: config.socket.acknowledge)
        if let outputs = top.value("outputs") { config.outputs = try readOutputs(outputs, documents: config.pipeline.documents) }
        var mqtt = try top.section("mqtt")
        config.mqtt = try MQTTConfig(&mqtt)
        var web = try top.section("web")
        config.web = try WebConfig(&web)
        try top.finish()
        return config
    }

    private static func readScanner(_ section: inout Section, into scanner: inout ScanningConfig) throws(ConfigError) {
        if let value = section.value("mode") { scanner.mode = try value.choice(ReadMode.self) }
        if let value = section.value("trigger_timeout") { scanner.triggerTimeoutSeconds = try value.double(in: 0.1...600) }
        if let value = section.value("torch") { scanner.torch = try value.choice(TorchMode.self) }
        if let value = section.value("stall_timeout") { scanner.stallSeconds = try value.double(in: 0.5...600) }
        try section.finish()
    }

    private static func readCamera(_ section: inout Section, into camera: inout CameraConfig) throws(ConfigError) {
        if let value = section.value("device") {
            camera.device = try value.string()
            guard !camera.device.isEmpty else { throw value.error("must name a device, auto, libcamera[:ID], or replay:DIR") }
        }
        if let value = section.value("width") { camera.width = try value.int(in: 16...8192) }
        if let value = section.value("height") { camera.height = try value.int(in: 16...8192) }
        if let value = section.value("fps") { camera.fps = try value.int(in: 1...240) }
        // libcamera's controls take fractions (AnalogueGain: 2.5); V4L2's are whole numbers.
        let libcamera = camera.libcameraID != nil
        var controls = try section.section("controls")
        for name in controls.allKeys() {
            let value = controls.value(name)!
            camera.controls[name] =
                libcamera ? try value.double(in: -1e9...1e9) : Double(try value.int(in: Int(Int32.min)...Int(Int32.max)))
        }
        if let value = section.value("autofocus") { camera.autofocus = try value.choice(CameraConfig.Autofocus.self) }
        if let value = section.value("lens_position") { camera.lensPosition = try value.double(in: 0...100) }
        try section.finish()
    }

    private static func readDecoder(_ section: inout Section, into decoder: inout DecoderConfig) throws(ConfigError) {
        if let value = section.value("engine") {
            decoder.engine = try value.choice(DecoderEngine.self)
            decoder.symbologies = decoder.engine.defaultSymbologies
        }
        if let value = section.value("symbologies") {
            var chosen: Set<Symbology> = []
            for item in try value.items() { chosen.insert(try symbology(item)) }
            guard !chosen.isEmpty else { throw value.error("enable at least one symbology") }
            decoder.symbologies = chosen
            if let refusal = decoder.engine.refusal(for: chosen) { throw value.error(refusal) }
        }
        var lengths = try section.section("lengths")
        for name in lengths.allKeys() {
            let value = lengths.value(name)!
            let symbology = try symbology(value, name: name)
            var limits = try Section(node: value.node, file: value.file, path: value.key, line: value.line)
            var limit = LengthLimit()
            if let min = limits.value("min") { limit.min = try min.int(in: 1...4096) }
            if let max = limits.value("max") { limit.max = try max.int(in: 1...4096) }
            try limits.finish()
            if let min = limit.min, let max = limit.max, min > max { throw value.error("min \(min) is above max \(max)") }
            decoder.lengths[symbology] = limit
        }
        if let value = section.value("preprocessing") {
            var passes: Set<Preprocessing> = []
            for item in try value.items() { passes.insert(try item.choice(Preprocessing.self)) }
            decoder.preprocessing = passes
        }
        try section.finish()
    }

    static func symbology(_ value: Value, name: String? = nil) throws(ConfigError) -> Symbology {
        let text: String
        if let name { text = name } else { text = try value.string() }
        guard let symbology = Symbology(name: text) else {
            throw value.error("unknown symbology '\(text)' (known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return symbology
    }

    private static func readTracking(_ section: inout Section, into tracking: inout TrackingConfig) throws(ConfigError) {
        if let value = section.value("absence") { tracking.absenceSeconds = try value.double(in: 0...3600) }
        if let value = section.value("same_code_timeout") { tracking.sameCodeTimeoutSeconds = try value.double(in: 0...86400) }
        if let value = section.value("continuation") { tracking.continuationSeconds = try value.double(in: 0...60) }
        if let value = section.value("misread") { tracking.misreadSeconds = try value.double(in: 0...5) }
        if let value = section.value("confirm") {
            var chosen: Set<Symbology> = []
            for item in try value.items() { chosen.insert(try symbology(item)) }
            tracking.confirm = chosen
        }
        if let value = section.value("confirm_below") { tracking.confirmBelow = try value.int(in: 0...100) }
        try section.finish()
    }

    private static func readPack(_ section: inout Section, into pack: inout PackConfig) throws(ConfigError) {
        if let value = section.value("merge") { pack.merge = try value.bool() }
        if let value = section.value("window") { pack.windowSeconds = try value.double(in: 0...5) }
        if let value = section.value("prefer") { pack.prefer = try value.choice(PackConfig.Prefer.self) }
        try section.finish()
    }

    private static func readGating(_ section: inout Section, into gating: inout GatingConfig) throws(ConfigError) {
        if let value = section.value("enabled") { gating.enabled = try value.bool() }
        if let value = section.value("threshold") { gating.threshold = try value.double(in: 0...255) }
        if let value = section.value("tiles") { gating.tiles = try value.int(in: 1...32) }
        if let value = section.value("max_interval") { gating.maxIntervalSeconds = try value.double(in: 0...3600) }
        if let value = section.value("second_look_interval") { gating.secondLookIntervalSeconds = try value.double(in: 0...3600) }
        try section.finish()
    }

    private static func readSocket(_ section: inout Section, into socket: inout SocketConfig, documents: DocumentsConfig) throws(ConfigError) {
        if let value = section.value("path") { socket.path = try value.socketPath() }
        if let value = section.value("mode") {
            let text = try value.string()
            guard let mode = Int(text.hasPrefix("0o") ? String(text.dropFirst(2)) : text, radix: 8), (0...0o777).contains(mode) else {
                throw value.error("expected an octal file mode such as \"0660\"")
            }
            socket.mode = mode
        }
        if let value = section.value("group") {
            let group = try value.string()
            socket.group = group.isEmpty ? nil : group
        }
        if let value = section.value("format") { socket.format = try value.choice(SocketConfig.Format.self) }
        if let value = section.value("hold_count") { socket.holdCount = try value.int(in: 0...10_000) }
        if let value = section.value("hold_seconds") { socket.holdSeconds = try value.double(in: 0...3600) }
        if let value = section.value("client_buffer") { socket.clientBufferBytes = try value.int(in: 4096...(64 << 20)) }
        if let value = section.value("max_clients") { socket.maxClients = try value.int(in: 1...4096) }
        if let value = section.value("max_queued") { socket.maxQueuedBytes = try value.int(in: 65536...(1 << 30)) }
        if let value = section.value("consumer_after") { socket.consumerAfterSeconds = try value.double(in: 0...60) }
        if let value = section.value("control_group") {
            let group = try value.string()
            socket.controlGroup = group.isEmpty ? nil : group
        }
        if let value = section.value("images") { socket.images = try value.bool() }
        if let value = section.value("acknowledge") { socket.acknowledge = try value.choice(SocketConfig.Acknowledge.self) }
        if let value = section.value("ack_timeout") { socket.ackTimeoutSeconds = try value.double(in: 0.05...600) }
        if let value = section.value("read_timeout") { socket.readTimeoutSeconds = try value.double(in: 0.05...600) }
        if let value = section.value("consumer_group") {
            let group = try value.string()
            socket.consumerGroup = group.isEmpty ? nil : group
        }
        if let value = section.value("control_characters") { socket.controlCharacters = try controlCharacters(value) }
        try readFormatting(&section, into: &socket.formatting, documents: documents)
        try section.finish()
    }

    private static func readMetrics(_ section: inout Section, into metrics: inout MetricsConfig) throws(ConfigError) {
        if let value = section.value("textfile") { metrics.textfile = try value.textfilePath() }
        if let value = section.value("interval") { metrics.intervalSeconds = try value.double(in: 1...3600) }
        try section.finish()
    }
}
