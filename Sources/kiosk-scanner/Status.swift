import ArgumentParser
import FoundationEssentials
import Glibc
import ScannerCore

/// `kiosk-scanner status`: what the running daemon is doing, from its `status` command.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the running daemon's camera, torch, mode, clients, decode times and counters."
    )

    @Option(help: "The socket path.")
    var socket = SocketConfig().path

    @Flag(help: "Print the status object as JSON.")
    var json = false

    @Flag(help: "Print the counters in Prometheus text format instead.")
    var prometheus = false

    @Option(help: "Seconds to wait for the daemon's reply.")
    var timeout = 5.0

    func run() throws {
        guard let connection = SocketLines(path: socket, timeout: timeout) else {
            Scan.fail("cannot connect to \(socket): \(String(cString: strerror(errno))); is the daemon running?")
            throw ExitCode(2)
        }
        connection.declareTool()
        connection.send(prometheus ? "metrics" : "status")
        while let line = connection.next() {
            let text = String(decoding: line, as: UTF8.self)
            // A plain-format socket answers `status` with one "ok key=value ..." line.
            if !prometheus, text.hasPrefix("ok camera=") {
                guard !json else {
                    Scan.fail("\(socket) is a plain-format socket, which has no JSON status (socket.format: json): \(text)")
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
            guard let object = JSON.object(parsing: line), object["type"]?.string == "reply" else { continue }
            if prometheus {
                print(object["metrics"]?.string ?? "", terminator: "")
            } else if json, let status = object["status"] {
                print(String(decoding: try JSON.text(status), as: UTF8.self))
            } else if let status = object["status"]?.object {
                print(Self.describe(status))
            }
            return
        }
        if connection.timedOut {
            Scan.fail("no reply from the daemon on \(socket) within \(timeout) s")
            throw ExitCode(2)
        }
        Scan.fail("\(socket) closed without a reply")
        throw ExitCode(2)
    }

    static func describe(_ status: [String: JSON]) -> String {
        let state = status["state"]?.object ?? [:]
        let counters = status["counters"]?.object ?? [:]
        func int(_ key: String) -> Int { counters[key]?.int ?? 0 }
        func breakdown(_ key: String) -> String {
            let entries = (counters[key]?.object?.compactMapValues(\.int) ?? [:]).sorted { $0.key < $1.key }
            return entries.isEmpty ? "" : " (" + entries.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        let decode = [("p50", status["decode_ms_p50"]), ("p99", status["decode_ms_p99"])].compactMap { name, value in
            value?.double.map { "\(name) <= \($0) ms" }
        }
        var lines = [
            "camera      \(state["camera"]?.string ?? "?")  \(state["device"]?.string ?? "")  \(state["format"]?.string ?? "")",
            "torch       \(state["torch"]?.string ?? "?") (mode \(state["torch_mode"]?.string ?? "?"))",
            "mode        \(state["mode"]?.string ?? "?"), \((state["paused"]?.bool ?? false) ? "paused" : "active")",
            "outputs     socket: \(status["clients"]?.int ?? 0) clients, \(status["held"]?.int ?? 0) reads held",
            "decode      \(decode.isEmpty ? "nothing decoded yet" : decode.joined(separator: ", "))",
            "reads       \(int("reads"))\(breakdown("reads_by_symbology"))",
            "duplicates  \(int("duplicates")) suppressed",
            "dropped     \((counters["dropped"]?.object?.compactMapValues(\.int) ?? [:]).values.reduce(0, +))\(breakdown("dropped"))",
            "reconnects  \(int("reconnects"))",
            "torch ons   \(int("torch_switch_ons"))",
            "frames      \(int("frames_decoded")) decoded, \(int("frames_gated")) gated, \(int("frames_skipped")) skipped",
        ]
        for output in status["outputs"]?.array?.compactMap(\.object) ?? [] {
            let failed = (output["failed"]?.object?.compactMapValues(\.int) ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            var line = "            \(output["name"]?.string ?? "?"): \(output["state"]?.string ?? "?"), sent \(output["sent"]?.int ?? 0)"
            if !failed.isEmpty { line += ", failed \(failed.joined(separator: ", "))" }
            if let queued = output["queued"]?.int, queued > 0 { line += ", \(queued) queued" }
            if let detail = output["detail"]?.string { line += " (\(detail))" }
            lines.insert(line, at: 4)
        }
        if let detail = state["detail"]?.string { lines.insert("            \(detail)", at: 1) }
        return lines.joined(separator: "\n")
    }
}
