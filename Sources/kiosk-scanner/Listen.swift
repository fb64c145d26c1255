import ArgumentParser
import Daemon
import FoundationEssentials
import ScannerCore
import ScannerProtocol
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// `kiosk-scanner listen`: prints reads from the socket as they arrive, reconnecting by itself.
struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print reads from the daemon's socket as they arrive; reconnects when the daemon restarts."
    )

    @Option(help: "The socket path.")
    var socket = SocketConfig().path

    @Flag(help: "Print every event line as the daemon sends it (JSON).")
    var json = false

    @Option(help: "Stop after this many reads (0: never).")
    var count = 0

    func run() throws {
        var reads = 0
        var announced = false
        while true {
            guard let connection = SocketLines(path: socket) else {
                if !announced { Scan.fail("waiting for \(socket): \(Errno(rawValue: errno).description)") }
                announced = true
                usleep(300_000)
                continue
            }
            announced = false
            // A consumer of scans from the first line: held reads come at once (README, "The socket").
            connection.send("subscribe")
            var subscribed = false
            while let line = connection.next() {
                if !subscribed, Self.isSubscribeReply(line) {
                    subscribed = true
                    continue
                }
                if emit(line) {
                    reads += 1
                    if count > 0, reads >= count { return }
                }
            }
            Scan.fail("connection to \(socket) closed; reconnecting")
        }
    }

    /// The daemon's answer to `subscribe`: `ok` (plain) or a JSON reply.
    private static func isSubscribeReply(_ line: Data) -> Bool {
        if line == Data("ok".utf8) { return true }
        return EventLine(line)?.envelope.command == "subscribe"
    }

    /// Prints one event line; returns whether it was a read.
    private func emit(_ line: Data) -> Bool {
        guard let event = EventLine(line) else {
            output(String(decoding: line, as: UTF8.self))  // plain-format socket
            return true
        }
        guard event.envelope.type == "scan" else {
            if json { output(String(decoding: line, as: UTF8.self)) }
            return false
        }
        if json {
            output(String(decoding: line, as: UTF8.self))
        } else if let scan = event.decode(ScanEvent.self) {
            // As the socket's formatting sends it, when it has any; the codes of its pack are named.
            let merged = scan.read.merged.map { " (with \($0.map(\.symbology).joined(separator: ", ")))" } ?? ""
            output("\(scan.read.symbology):\(scan.formatted ?? scan.read.text ?? "<binary>")\(merged)")
        } else {
            Scan.fail("a scan event that does not decode: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        return true
    }

    /// Writes a line at once, so pipes and terminals see reads as they come.
    private func output(_ line: String) {
        writeLine(Scan.forTerminal(line, json: json), to: STDOUT_FILENO)
    }
}
