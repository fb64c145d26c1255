import ScannerProtocol

/// The counters in the Prometheus text exposition format, for the `metrics` command.
enum Metrics {
    static func prometheus(_ counters: Counters.Snapshot, _ state: ScannerSnapshot, outputs: [OutputStatus]) -> String {
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += "# HELP kiosk_scanner_\(name) \(help)\n# TYPE kiosk_scanner_\(name) \(type)\n"
            for sample in samples { text += "kiosk_scanner_\(name)\(sample.labels) \(sample.value)\n" }
        }
        func label(_ key: String, _ value: String) -> String {
            "{\(key)=\"\(value.escaping(["\\": "\\\\", "\"": "\\\"", "\n": "\\n"]))\"}"
        }
        // Most metrics are one number; two are counts by a label, in the label's order.
        func single(_ value: some CustomStringConvertible) -> [(labels: String, value: String)] { [("", value.description)] }
        func by(_ key: String, _ counts: [String: Int]) -> [(labels: String, value: String)] {
            counts.sorted { $0.key < $1.key }.map { (label(key, $0.key), "\($0.value)") }
        }
        metric("reads_total", "counter", "Reads delivered.", single(counters.reads))
        metric("reads_by_symbology_total", "counter", "Reads delivered, by symbology.", by("symbology", counters.readsBySymbology))
        metric("detections_total", "counter", "Codes found in frames before tracking.", single(counters.detections))
        metric("duplicates_total", "counter", "Detections of a code already reported and still in view.", single(counters.duplicates))
        metric(
            "unconfirmed_total", "counter", "First sightings of a code that a second frame must confirm (tracking.confirm).",
            single(counters.unconfirmed))
        metric("merged_total", "counter", "Codes reported inside another code's read (one read per pack).", single(counters.merged))
        metric("reads_dropped_total", "counter", "Reads not delivered, by reason.", by("reason", counters.dropped))
        metric("reads_rejected_total", "counter", "Reads a consumer refused (nak).", single(counters.rejected))
        metric("camera_reconnects_total", "counter", "Times the camera came back.", single(counters.reconnects))
        metric("clients", "gauge", "Socket clients connected.", single(counters.clients))
        metric("torch_switch_ons_total", "counter", "Times the torch was switched on.", single(counters.torchSwitchOns))
        metric("torch_on", "gauge", "1 while the torch is on.", single(state.torch ? 1 : 0))
        metric("camera_streaming", "gauge", "1 while the camera streams.", single(state.camera.state == .streaming ? 1 : 0))
        metric(
            "frames_total", "counter", "Frames, by what became of them.",
            [
                (label("outcome", "decoded"), "\(counters.framesDecoded)"), (label("outcome", "gated"), "\(counters.framesGated)"),
                (label("outcome", "skipped"), "\(counters.framesSkipped)"),
            ])
        if !outputs.isEmpty {
            metric("output_up", "gauge", "1 while an output can send.", outputs.map { (label("output", $0.name), $0.state == "ok" ? "1" : "0") })
            metric("output_sent_total", "counter", "Reads an output sent.", outputs.map { (label("output", $0.name), "\($0.sent)") })
            metric(
                "output_failed_total", "counter", "Reads an output gave up, by reason.",
                outputs.flatMap { output in
                    output.failed.sorted { $0.key < $1.key }.map { ("{output=\"\(output.name)\",reason=\"\($0.key)\"}", "\($0.value)") }
                })
            metric(
                "output_filtered_total", "counter", "Reads a formatting rule sent as nothing.",
                outputs.map { (label("output", $0.name), "\($0.filtered)") })
            metric("output_queued", "gauge", "Reads waiting in an output's queue.", outputs.map { (label("output", $0.name), "\($0.queued)") })
        }
        var cumulative = 0
        var buckets: [(String, String)] = []
        for (index, bound) in Counters.decodeBuckets.enumerated() {
            cumulative += counters.decodeHistogram[index]
            buckets.append((label("le", "\(bound)"), "\(cumulative)"))
        }
        let total = counters.decodeHistogram.reduce(0, +)
        buckets.append((label("le", "+Inf"), "\(total)"))
        text += "# HELP kiosk_scanner_decode_seconds Time to decode one frame.\n# TYPE kiosk_scanner_decode_seconds histogram\n"
        for (labels, value) in buckets { text += "kiosk_scanner_decode_seconds_bucket\(labels) \(value)\n" }
        text += "kiosk_scanner_decode_seconds_sum \(counters.decodeSeconds)\nkiosk_scanner_decode_seconds_count \(total)\n"
        return text
    }
}
