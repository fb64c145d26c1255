import ArgumentParser
import Codes
import FoundationEssentials
import ScannerProtocol

/// `kiosk-scanner status`: what the running daemon is doing, from its `status` command.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the running daemon's camera, torch, mode, clients, decode times and counters."
    )

    @OptionGroup var daemon: DaemonSocket

    @Flag(help: "Print the status object as JSON.")
    var json = false

    @Flag(help: "Print the counters in Prometheus text format instead.")
    var prometheus = false

    @Option(help: "Seconds to wait for the daemon's reply.")
    var timeout = 5.0

    func run() throws {
        let connection = try daemon.connectAsTool(timeout: timeout)
        connection.send(prometheus ? "metrics" : "status")
        while let line = connection.next() {
            let text = String(decoding: line, as: UTF8.self)
            // A plain-format socket answers `status` with one "ok key=value ..." line.
            if !prometheus, text.hasPrefix("ok camera=") {
                guard !json else {
                    Scan.fail("\(daemon.socket) is a plain-format socket, which has no JSON status (socket.format: json): \(text)")
                    throw ExitCode(2)
                }
                print(text.dropFirst(3))
                return
            }
            // ... and `metrics` with the exposition's lines, then "ok"; reads may come in between.
            if prometheus, !text.hasPrefix("{") {
                if text == "ok" { return }
                if text.hasPrefix("# ") || text.hasPrefix("kiosk_scanner_") { print(text) }
                continue
            }
            if text.hasPrefix("error: ") {
                Scan.fail("the daemon says: \(text.dropFirst(7))")
                throw ExitCode(2)
            }
            guard let event = EventLine(line), event.envelope.type == "reply" else { continue }
            guard let reply = event.decode(Reply.self) else {
                Scan.fail("the daemon's reply does not decode: \(text.prefix(200))")
                throw ExitCode(2)
            }
            if prometheus {
                print(reply.metrics ?? "", terminator: "")
            } else if let status = reply.status {
                print(json ? String(decoding: try JSONEncoder.forEvents().encode(status), as: UTF8.self) : Self.describe(status))
            }
            return
        }
        if connection.timedOut {
            Scan.fail("no reply from the daemon on \(daemon.socket) within \(timeout) s")
            throw ExitCode(2)
        }
        Scan.fail("\(daemon.socket) closed without a reply")
        throw ExitCode(2)
    }

    static func describe(_ status: StatusReply) -> String {
        let state = status.state
        let counters = status.counters
        func breakdown(_ entries: [String: Int]) -> String {
            entries.isEmpty ? "" : " (" + entries.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        // The highest bound also stands for the +Inf bucket: all that is known then is the bound below.
        let bounds = CounterSnapshot.decodeBuckets.map { $0 * 1000 }
        let decode = [("p50", status.decodeMsP50), ("p99", status.decodeMsP99)].compactMap { name, value in
            value.map { $0 == bounds.last && bounds.count > 1 ? "\(name) > \(bounds[bounds.count - 2]) ms" : "\(name) <= \($0) ms" }
        }
        var lines = [
            "camera      \(state.camera)  \(state.device)  \(state.format ?? "")",
            "torch       \(state.torch) (mode \(state.torchMode.rawValue))",
            "mode        \(state.mode.rawValue), \(state.paused ? "paused" : "active")",
            "outputs     socket: \(status.clients) clients (\(status.watchers) watching), \(status.held) reads held",
            "decode      \(decode.isEmpty ? "nothing decoded yet" : decode.joined(separator: ", "))",
            "reads       \(counters.reads)\(breakdown(counters.readsBySymbology))",
            "duplicates  \(counters.duplicates) suppressed, \(counters.unconfirmed) first sightings awaiting a second frame",
            "merged      \(counters.merged) into another code's read (same pack)",
            "dropped     \(counters.dropped.values.reduce(0, +))\(breakdown(counters.dropped))",
            "reconnects  \(counters.reconnects)",
            "torch ons   \(counters.torchSwitchOns)",
            "frames      \(counters.framesDecoded) decoded, \(counters.framesGated) gated, \(counters.framesSkipped) skipped",
        ]
        for output in status.outputs {
            var line = "            \(output.name): \(output.state), sent \(output.sent)"
            if output.filtered > 0 { line += ", sent as nothing by rules \(output.filtered)" }
            if !output.failed.isEmpty { line += ", failed \(output.failed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))" }
            if output.queued > 0 { line += ", \(output.queued) queued" }
            if let detail = output.detail { line += " (\(detail))" }
            lines.insert(line, at: 4)
        }
        if let detail = state.detail { lines.insert("            \(detail)", at: 1) }
        return lines.joined(separator: "\n")
    }
}
