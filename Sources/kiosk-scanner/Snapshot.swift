import ArgumentParser
import Daemon
import FoundationEssentials
import ImageFiles
import Platform
import ScannerProtocol

/// `kiosk-scanner snapshot`: the running daemon's current view, for aiming the camera and setting the viewport.
struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save the running daemon's latest frame as a PNG with the viewport and the codes in view drawn on it.",
        discussion:
            "The frame is decoded in full for the picture, even while scanning is paused or gated. `kiosk-scanner scan FILE` on the picture reproduces the reads."
    )

    @Option(help: "The PNG file to write.")
    var out = "snapshot.png"

    @OptionGroup var daemon: DaemonSocket

    func run() throws {
        let connection = try daemon.connectAsTool()
        connection.send("snapshot")
        while let event = connection.nextEvent() {
            guard event.envelope.type == "reply", event.envelope.command == "snapshot" else { continue }
            let reply = event.decode(Reply.self)
            guard let reply, reply.ok, let frame = reply.frame, let luma = event.luma, luma.count == frame.width * frame.height else {
                Scan.fail("snapshot: \(reply?.error ?? "the daemon sent no usable frame")")
                throw ExitCode(1)
            }
            var image = RGBImage(width: frame.width, height: frame.height, grey: [UInt8](luma))
            let codes = frame.symbols.map { Overlay.Code(corners: $0.corners, label: "\($0.symbology) \($0.text ?? "(binary)")") }
            Overlay.draw(on: &image, viewport: frame.viewport, codes: codes)
            // Written whole beside `out` and renamed over it: never through a symlink planted there.
            do {
                try AtomicFile.write(try PNGWriter.encode(image, for: out), to: out)
            } catch let error as ImageFileError {
                Scan.fail("\(error)")
                throw ExitCode(1)
            } catch {
                Scan.fail("cannot write \(out): \(error)")
                throw ExitCode(1)
            }
            let viewport = frame.viewport
            // A code's text is anything its printer put there: on a terminal, escaped as `scan` does.
            print(
                Scan.forTerminal(
                    "\(out): frame \(frame.sequence), \(frame.width)x\(frame.height), viewport \(viewport.x),\(viewport.y) \(viewport.width)x\(viewport.height), \(codes.count) code\(codes.count == 1 ? "" : "s") in view",
                    json: false))
            for code in codes { print(Scan.forTerminal("  \(code.label)", json: false)) }
            return
        }
        Scan.fail("\(daemon.socket) closed without a snapshot reply")
        throw ExitCode(2)
    }
}
