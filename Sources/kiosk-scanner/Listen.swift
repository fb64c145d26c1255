import ArgumentParser
import Daemon
import FoundationEssentials
import Platform
import ScannerProtocol

/// `kiosk-scanner listen`: prints reads from the socket as they arrive, reconnecting by itself.
struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print reads from the daemon's socket as they arrive; reconnects when the daemon restarts."
    )

    @OptionGroup var daemon: DaemonSocket

    @OptionGroup var stopAfter: StopAfter

    @Flag(help: "Print every event line as the daemon sends it (JSON).")
    var json = false

    @Flag(help: "Ack each read once it is printed (for socket.acknowledge: required).")
    var ack = false

    func run() throws {
        var reads = 0
        var announced = false
        while true {
            let connection: SocketLines
            do {
                connection = try SocketLines(path: daemon.socket)
            } catch {
                if !announced { Scan.fail("waiting for \(daemon.socket): \(error.description)") }
                announced = true
                CurrentProcess.sleep(nanoseconds: 300_000_000)
                continue
            }
            announced = false
            // A consumer of scans from the first line: held reads come at once (docs/socket-protocol.md, "Delivery").
            connection.send("subscribe")
            var subscribed = false
            // Plain replies to our acks (`ok`, `error: ...`), still to come.
            var acksUnanswered = 0
            while let line = connection.next() {
                if !subscribed, Self.isSubscribeReply(line) {
                    subscribed = true
                    continue
                }
                if acksUnanswered > 0, line == Data("ok".utf8) || line.starts(with: Data("error: ".utf8)) {
                    acksUnanswered -= 1
                    continue
                }
                if EventLine(line)?.envelope.command == "ack" { continue }
                let (isRead, seq) = emit(line)
                guard isRead else { continue }
                if ack {
                    // Printed is what the POS side of this pipe has: the read is delivered now.
                    connection.send(seq.map { "ack \($0)" } ?? "ack")
                    if seq == nil { acksUnanswered += 1 }
                }
                reads += 1
                if stopAfter.isReached(reads) { return }
            }
            Scan.fail("connection to \(daemon.socket) closed; reconnecting")
        }
    }

    /// The daemon's answer to `subscribe`: `ok` (plain) or a JSON reply.
    private static func isSubscribeReply(_ line: Data) -> Bool {
        if line == Data("ok".utf8) { return true }
        return EventLine(line)?.envelope.command == "subscribe"
    }

    /// Prints one event line; returns whether it was a read, and its seq (none in the plain format).
    private func emit(_ line: Data) -> (isRead: Bool, seq: UInt64?) {
        guard let event = EventLine(line) else {
            output(String(decoding: line, as: UTF8.self))  // plain-format socket
            return (true, nil)
        }
        guard event.envelope.type == "scan" else {
            if json { output(String(decoding: line, as: UTF8.self)) }
            return (false, nil)
        }
        let scan = event.decode(ScanEvent.self)
        if json {
            output(String(decoding: line, as: UTF8.self))
        } else if let scan {
            // As the socket's formatting sends it, when it has any; the codes of its pack are named.
            // A kiosk document whose raw data is withheld has no text: its fields stand for it.
            let merged = scan.read.merged.map { " (with \($0.map(\.symbology).joined(separator: ", ")))" } ?? ""
            output("\(scan.read.symbology):\(scan.formatted ?? scan.read.text ?? scan.read.documentSummary ?? "<binary>")\(merged)")
        } else {
            Scan.fail("a scan event that does not decode: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        return (true, scan?.read.seq)
    }

    /// Writes a line at once, so pipes and terminals see reads as they come.
    private func output(_ line: String) {
        writeLine(Scan.forTerminal(line, json: json), to: .standardOutput)
    }
}
