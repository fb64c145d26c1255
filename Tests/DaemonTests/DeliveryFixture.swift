import Codes
import Daemon
import Feedback
import Foundation
import Imaging
import Logging
import NIOCore
import NIOEmbedded
import Outputs
import ScannerProtocol
import Synchronization

@testable import Daemon

/// `Delivery` on an EmbeddedEventLoop, with consumers as EmbeddedChannels whose reading the test
/// plays, a feedback recorder and outputs that answer as told: the delivery rules in-process,
/// with time moved by hand.
final class DeliveryFixture {
    let loop = EmbeddedEventLoop()
    let counters = Counters()
    let feedback = FeedbackRecorder()
    let delivery: Delivery
    let config: SocketConfig
    /// What each consumer's peer has done with its lines, by channel.
    private let reading: Reading
    private var seq: UInt64 = 0

    final class Reading {
        var byChannel: [ObjectIdentifier: PeerReading] = [:]
    }

    init(_ config: SocketConfig = SocketConfig(), beepAfter: GPIOConfig.BeepAfter = .accepted, outputs: [any Output] = []) {
        var config = config
        config.consumerAfterSeconds = 0
        self.config = config
        let reading = Reading()
        self.reading = reading
        delivery = Delivery(
            config: config, eventLoop: loop, counters: counters, feedback: feedback, beepAfter: beepAfter, outputs: outputs,
            target: StillTarget(), tap: FrameTap(), logger: Logger(label: "delivery-test"),
            peerReading: { channel in reading.byChannel[ObjectIdentifier(channel)] ?? .unread })
    }

    /// A connected client; it consumes scans (`subscribe`) unless told otherwise.
    func connect(subscribe: Bool = true) throws -> Peer {
        let channel = EmbeddedChannel(handler: ClientHandler(delivery: delivery), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let peer = Peer(channel: channel, fixture: self)
        if subscribe { _ = try peer.command("subscribe") }
        return peer
    }

    /// Hands a QR code read with this text over, as the capture loop would.
    @discardableResult
    func scan(_ text: String) -> UInt64 {
        seq += 1
        let corners = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])
        let read = Read(symbol: Symbol(symbology: .qr, bytes: Array(text.utf8), corners: corners), frame: Size(width: 10, height: 10), seq: seq)
        delivery.accept(read, line: ReadInlet.line(for: read, config: config, encoder: JSONEncoder()))
        loop.run()
        return seq
    }

    /// Moves the loop's clock on, running what falls due (the 5 ms checks among them).
    func advance(seconds: Double) {
        loop.advanceTime(by: .nanoseconds(Int64(seconds * 1e9)))
    }

    func setReading(_ channel: EmbeddedChannel, _ state: PeerReading) { reading.byChannel[ObjectIdentifier(channel)] = state }

    var snapshot: CounterSnapshot { counters.snapshot }

    /// detections = reads + dropped + rejected + held + awaiting (no duplicates here: every scan is new).
    func balances(scans: Int) -> Bool {
        let counts = counters.snapshot
        return scans == counts.reads + counts.dropped.values.reduce(0, +) + counts.rejected + delivery.held.count + delivery.awaitingCount
    }
}

/// A client of the fixture: what it was sent, and what it sends.
final class Peer {
    let channel: EmbeddedChannel
    let fixture: DeliveryFixture
    /// Lines that came before a command's reply, kept for `lines()`.
    private var kept: [[String: Any]] = []

    init(channel: EmbeddedChannel, fixture: DeliveryFixture) {
        self.channel = channel
        self.fixture = fixture
    }

    /// Every line written to it since the last call, decoded.
    func lines() throws -> [[String: Any]] {
        var result = kept
        kept = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            for line in String(buffer: buffer).split(separator: "\n") {
                result.append((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:])
            }
        }
        return result
    }

    /// The seqs of the scans written to it since the last call.
    func scans() throws -> [Int] { try lines().filter { $0["type"] as? String == "scan" }.compactMap { $0["seq"] as? Int } }

    /// Sends a command line and returns its reply (other lines stay for `lines()`).
    func command(_ line: String) throws -> [String: Any]? {
        try channel.writeInbound(channel.allocator.buffer(string: line + "\n"))
        fixture.loop.run()
        let all = try lines()
        kept = all.filter { $0["type"] as? String != "reply" }
        return all.last { $0["type"] as? String == "reply" }
    }

    /// Its process read (or did not read) everything written to it.
    func reads(_ reading: PeerReading = .readAll) { fixture.setReading(channel, reading) }
}

/// Feedback patterns in the order they sounded.
final class FeedbackRecorder: Feedback, Sendable {
    private let played = Mutex<[String]>([])
    var patterns: [String] { played.withLock { $0 } }
    func count(_ pattern: String) -> Int { patterns.count { $0 == pattern } }

    func setTorch(_ on: Bool) {}
    func goodRead() { played.withLock { $0.append("good") } }
    func error() { played.withLock { $0.append("error") } }
    func held() { played.withLock { $0.append("held") } }
    func dropped() { played.withLock { $0.append("dropped") } }
    func rejected(_ name: String?) { played.withLock { $0.append("rejected:\(name ?? "-")") } }
    func beep() {}
}

/// A scanner that streams and obeys.
struct StillTarget: CommandTarget {
    func execute(_ command: Command) -> Result<Void, CommandError> { .success(()) }
    var snapshot: ScannerSnapshot {
        ScannerSnapshot(
            camera: CameraStatus(state: .streaming, device: "test"), torch: false, torchMode: .off, mode: .presentation, paused: false,
            triggered: false)
    }
    var outputHealth: [OutputStatus] { [] }
}

/// An output that takes (or gives up) every read at once.
final class AnsweringOutput: Output {
    let name = "test output"
    let accepts: Bool
    private let sent = Mutex<[UInt64]>([])
    var reads: [UInt64] { sent.withLock { $0 } }

    init(accepts: Bool) { self.accepts = accepts }

    func send(_ read: Read, done: @escaping @Sendable (Bool) -> Void) {
        sent.withLock { $0.append(read.seq) }
        done(accepts)
    }
    var health: OutputHealth { OutputHealth(state: .ok) }
    func run() async throws {}
}
