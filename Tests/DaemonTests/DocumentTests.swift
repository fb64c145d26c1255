import Foundation
import ScannerTestSupport
import Testing

/// Kiosk documents through the running daemon (issue #35): a zint PDF417 licence and an Aztec
/// boarding pass, replayed as camera frames. Consumers get the fields the config chooses, and the
/// licence's raw data reaches no log line, socket event, snapshot, recording or MQTT message.
@Suite(.serialized) struct DocumentTests {
    let directory: String

    init() throws {
        directory = try TemporaryDirectory.shared.directory("documents")
    }

    /// A daemon (at debug log level, as DaemonProcess starts it) replaying the licence and the pass.
    func daemon(extra: String = "") throws -> DaemonProcess {
        let frames = try KioskDocuments.replayDirectory()
        return try DaemonProcess(
            config: Fixtures.config(device: "replay:\(frames)", extra: "viewport:\n  rect: [0, 0, 1, 1]\n\(extra)"))
    }

    /// The raw line of the next reply to `command` (events before it are passed over).
    static func replyLine(_ client: SocketClient, to command: String) -> String? {
        client.send(command)
        while let line = client.line(timeout: 20) {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["type"] as? String == "reply" {
                return line
            }
        }
        return nil
    }

    /// The licence's secrets that `text` holds.
    static func leaked(_ text: String) -> [String] {
        KioskDocuments.licenceSecrets.filter { text.contains($0) } + (text.contains(KioskDocuments.boardingPass) ? ["the pass's raw text"] : [])
    }

    @Test func consumersGetTheChosenFieldsAndTheLicenceGoesNowhereElse() throws {
        let broker = try Broker()
        let subscriber = try Subscriber(port: broker.port, topics: ["#"])
        let daemon = try daemon()
        let client = try daemon.connect()
        let bridgeConfig = try Fixtures.bridgeConfig(socket: daemon.socketPath, port: broker.port, spool: "\(directory)/spool", in: directory)
        let bridge = try Fixtures.bridge(config: bridgeConfig, in: directory)

        // The socket's JSON: the licence as `id`, the pass as `boarding_pass`, neither with text or bytes.
        let licence = try #require(client.waitFor(timeout: 60) { $0["id"] != nil }.match, "\(daemon.log.suffix(800))")
        let id = try #require(licence["id"] as? [String: Any])
        #expect(Set(id.keys) == KioskDocuments.idFields, "\(id)")
        #expect(id["issuer"] as? String == "Virginia" && id["age_over_18"] as? Bool == true && id["age_over_21"] as? Bool == true)
        #expect(id["expired"] as? Bool == true, "the example expired on 2024-12-10")
        #expect(licence["symbology"] as? String == "PDF417" && licence["raw_withheld"] as? Bool == true, "\(licence)")
        #expect(licence["text"] == nil && (licence["bytes"] as? String)?.isEmpty != false, "\(licence)")
        let pass = try #require(client.waitFor(timeout: 30) { $0["boarding_pass"] != nil }.match, "\(daemon.log.suffix(800))")
        let boardingPass = try #require(pass["boarding_pass"] as? [String: Any])
        #expect(Set(boardingPass.keys) == KioskDocuments.boardingPassFields, "\(boardingPass)")
        #expect(boardingPass["passenger_name"] as? String == "DESMARAIS/LUC" && boardingPass["legs_count"] as? Int == 1)
        let leg = try #require((boardingPass["legs"] as? [[String: Any]])?.first)
        #expect(leg["from"] as? String == "YUL" && leg["to"] as? String == "FRA", "\(leg)")
        #expect(pass["symbology"] as? String == "Aztec" && pass["raw_withheld"] as? Bool == true, "\(pass)")
        #expect(pass["text"] == nil && (pass["bytes"] as? String)?.isEmpty != false, "\(pass)")

        // A snapshot of a frame with the licence in it: its symbols carry the fields, not the data.
        let tool = try daemon.connect(subscribe: false)
        var snapshot: String?
        for _ in 0..<100 where snapshot == nil {
            snapshot = Self.replyLine(tool, to: "snapshot").flatMap { $0.contains("\"age_over_21\"") ? $0 : nil }
        }
        let shot = try #require(snapshot, "no snapshot showed the licence")
        #expect(Self.leaked(shot).isEmpty, "the snapshot reply holds \(Self.leaked(shot))")

        // A recording: its index lists the reads with their fields; no text file in it holds the data.
        let recording = directory + "/take"
        let recorded = try Tool.capture(Tool.scannerBinary, ["record", recording, "--seconds", "4", "--socket", daemon.socketPath])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: recording).filter { !$0.hasSuffix(".pgm") }
        #expect(files.contains("index.json"))
        let index = try String(contentsOfFile: recording + "/index.json", encoding: .utf8)
        #expect(index.contains("\"age_over_21\"") && index.contains("\"boarding_pass\""), "the recording saw both documents")
        for file in files {
            let text = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "\(recording)/\(file)")), as: UTF8.self)
            #expect(Self.leaked(text).isEmpty, "\(file) holds \(Self.leaked(text))")
        }

        // MQTT: every message the broker passed on, until the licence and the pass have both come.
        var messages: [String] = []
        var sawLicence = false
        var sawPass = false
        while !(sawLicence && sawPass), let message = subscriber.message(timeout: 60) {
            messages.append("\(message.topic) \(message.payload)")
            sawLicence = sawLicence || (message.topic.hasSuffix("/scan") && message.payload.contains("\"age_over_21\""))
            sawPass = sawPass || (message.topic.hasSuffix("/scan") && message.payload.contains("\"boarding_pass\""))
        }
        #expect(sawLicence && sawPass, "\(messages.suffix(5)) \(bridge.log.suffix(500))")
        #expect(messages.allSatisfy { Self.leaked($0).isEmpty }, "\(messages.filter { !Self.leaked($0).isEmpty })")

        // The logs, at debug level, name the reads and hold none of the data.
        #expect(daemon.log.contains("PDF417 from frame"), "\(daemon.log.suffix(800))")
        #expect(Self.leaked(daemon.log).isEmpty, "the daemon's log holds \(Self.leaked(daemon.log))")
        #expect(Self.leaked(bridge.log).isEmpty, "the bridge's log holds \(Self.leaked(bridge.log))")
        #expect(bridge.stop() == 0)
        #expect(daemon.stop() == 0)
    }

    @Test func thePlainFormatShowsTheFieldsAsPairs() throws {
        let daemon = try daemon(extra: "socket:\n  format: plain\n")
        let client = try daemon.connect()
        var lines: [String] = []
        while !(lines.contains { $0.hasPrefix("issuer=") } && lines.contains { $0.hasPrefix("legs_count=") }), let line = client.line(timeout: 60) {
            lines.append(line)
        }
        #expect(lines.contains("issuer=Virginia age_over_18=true age_over_21=true expired=true"), "\(lines)")
        let pass = try #require(lines.first { $0.hasPrefix("legs_count=") }, "\(lines)")
        #expect(pass.contains("passenger_name=DESMARAIS/LUC") && pass.contains("legs=1"), "\(pass)")
        #expect(lines.allSatisfy { Self.leaked($0).isEmpty }, "\(lines)")
    }

    /// With `raw: true` the licence's data goes to consumers as any code's does: the checks above
    /// look for it where it would be.
    @Test func withRawTheLicenceDataReachesConsumers() throws {
        let daemon = try daemon(extra: "id:\n  raw: true\n")
        let client = try daemon.connect()
        let licence = try #require(client.waitFor(timeout: 60) { $0["id"] != nil }.match, "\(daemon.log.suffix(800))")
        #expect(licence["text"] as? String == KioskDocuments.licence && licence["raw_withheld"] == nil, "\(licence)")
        #expect(Set((licence["id"] as? [String: Any] ?? [:]).keys) == KioskDocuments.idFields)
    }
}
