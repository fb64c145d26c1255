import ScannerProtocol

/// `PREFIX/DEVICE/...`: the topics of one scanner.
struct Topics {
    let base: String
    var scan: String { base + "/scan" }
    var state: String { base + "/state" }
    var availability: String { base + "/availability" }
    var command: String { base + "/cmd" }
    var commandReply: String { base + "/cmd/reply" }
}

/// The `state` message.
struct StatePayload: Encodable {
    let device: String
    let bootID: String?
    let scanner: StateEvent?
    let counters: CounterSnapshot?
    let bridge: Bridge.Health
    let spool: Spool.Counts
    let time: String

    enum CodingKeys: String, CodingKey {
        case device
        case bootID = "boot_id"
        case scanner, counters, bridge, spool, time
    }
}

/// The bridge's own answer on `cmd/reply`: a command it refused.
struct BridgeReply: Encodable {
    var type = "reply"
    let request: String
    let ok: Bool
    let error: String
}

/// The bridge's counters in Prometheus text format, for node_exporter's textfile collector.
enum BridgeMetrics {
    static func text(health: Bridge.Health, spool: Spool.Counts) -> String {
        var lines: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ value: Int) {
            lines += ["# HELP kiosk_scanner_mqtt_\(name) \(help)", "# TYPE kiosk_scanner_mqtt_\(name) \(type)", "kiosk_scanner_mqtt_\(name) \(value)"]
        }
        metric("broker_up", "gauge", "1 while the bridge is connected to the broker.", health.broker == "connected" ? 1 : 0)
        metric("daemon_up", "gauge", "1 while the bridge is connected to the daemon's socket.", health.daemon == "connected" ? 1 : 0)
        metric("broker_losses_total", "counter", "Times the broker connection was lost.", health.brokerLosses)
        metric("daemon_losses_total", "counter", "Times the daemon connection was lost.", health.daemonLosses)
        metric("spool_queued", "gauge", "Reads waiting for the broker.", spool.queued)
        metric("spool_bytes", "gauge", "Bytes of reads waiting for the broker.", spool.bytes)
        metric("spool_dropped_total", "counter", "Reads dropped because the spool was full.", spool.dropped)
        metric("published_total", "counter", "Reads the broker took (QoS 1: acknowledged).", spool.sent)
        metric(
            "spool_quarantined_total", "counter", "Spool entries that were not reads of the bridge's, moved to the spool's quarantine/ directory.",
            spool.quarantined)
        return lines.joined(separator: "\n") + "\n"
    }
}
