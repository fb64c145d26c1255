import Capture
import Codes
import ConfigReading
import Decoding
import Documents
import Feedback
import Imaging
import Outputs
import ReadPipeline
import ScannerProtocol

/// The whole configuration of the scanner, as read from `/etc/kiosk-scanner/kiosk-scanner.conf`.
///
/// Every field has the default that the shipped config file documents; a file only overrides.
public struct ScannerConfig: Sendable, Hashable {
    public var scanner = ScanningConfig()
    public var camera = CameraConfig()
    /// The read pipeline's sections: `viewport`, `decoder`, `tracking`, `pack`, `gating`, and kiosk
    /// documents (`id:`, `boarding_pass:`: which fields of a licence or a boarding pass consumers get).
    public var pipeline = PipelineConfig()
    public var socket = SocketConfig()
    public var metrics = MetricsConfig()
    public var gpio = GPIOConfig()
    /// Outputs besides the socket; every read goes to each.
    public var outputs: [OutputConfig] = []
    /// The MQTT bridge's settings (the daemon itself has no network code and ignores them).
    public var mqtt = MQTTConfig()
    /// The installer's console's settings (`kiosk-scanner web`; the daemon ignores them too).
    public var web = WebConfig()

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

extension ScannerConfig {
    /// What an admin should know about how kiosk documents leave this scanner, for `check-config`
    /// and the daemon's start: an output that would send a licence or a boarding pass as nothing
    /// (its raw data is withheld and none of its rules is an `id_template`).
    public var documentNotices: [String] {
        guard pipeline.documents.enabled else { return [] }
        let withheld = KioskDocument.Kind.allCases.filter { !pipeline.documents.policy(for: $0).raw }
        guard !withheld.isEmpty else { return [] }
        return outputs.enumerated().compactMap { index, output in
            let templated = output.format.formatting.rules.contains { rule in
                rule.actions.contains { if case .template = $0 { true } else { false } }
            }
            guard !templated else { return nil }
            let kinds = withheld.map { $0 == .id ? "driver's licences and ID cards" : "boarding passes" }.joined(separator: " and ")
            return "outputs[\(index)] (\(output.name)) sends \(kinds) as nothing: their raw data is withheld (raw: false) "
                + "and none of its rules is an id_template"
        }
    }
}
