import FoundationEssentials
import NIOCore
import NIOPosix
import ScannerProtocol
import Synchronization
import SystemPackage

/// One connection to the daemon's socket, as a client like any other, for as long as a closure
/// runs. Commands go out in order, each answered by one reply in the same order, so the
/// connection keeps the commands not yet answered and names the one each reply is for.
final class DaemonConnection: Sendable {
    private let state: Mutex<(unanswered: [String], writes: AsyncStream<String>.Continuation)>

    private init(writes: AsyncStream<String>.Continuation) {
        state = Mutex(([], writes))
    }

    /// Sends one command line.
    func send(_ command: String) {
        state.withLock { state in
            state.unanswered.append(command)
            state.writes.yield(command + "\n")
        }
    }

    /// The command a reply answers: the oldest one sent and not answered yet.
    func answered() -> String? {
        state.withLock { $0.unanswered.isEmpty ? nil : $0.unanswered.removeFirst() }
    }

    /// Connects to the socket at `path` and runs `body` with the connection and the daemon's
    /// lines; then sends what `body` left to send and closes.
    static func open<Result: Sendable>(
        path: String, _ body: (DaemonConnection, DaemonLines) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            let (writes, continuation) = AsyncStream.makeStream(of: String.self)
            let connection = DaemonConnection(writes: continuation)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await line in writes { try await outbound.write(ByteBuffer(string: line)) }
                }
                defer { continuation.finish() }
                let result = try await body(connection, DaemonLines(inbound))
                continuation.finish()
                try await group.waitForAll()
                return result
            }
        }
    }
}

extension DaemonConnection {
    /// Why a connection to the daemon's socket failed, with the likely fix.
    static func problem(_ error: any Error) -> String {
        guard let error = error as? IOError else { return "\(error)" }
        let errno = Errno(rawValue: error.errnoCode)
        switch errno {
        case .noSuchFileOrDirectory: return "\(errno): is kiosk-scanner running, and is socket.path its socket?"
        case .connectionRefused: return "\(errno): is kiosk-scanner running?"
        case .permissionDenied: return "\(errno): the console's user needs the socket's group (socket.group)"
        default: return "\(errno)"
        }
    }
}

/// One line from the daemon: its event type (and a reply's command and verdict), and the line
/// itself, which the console forwards to browsers as it came.
struct DaemonLine: Sendable {
    let type: String
    let line: String
    let reply: Reply?

    /// The daemon's reply, as much of it as the console needs.
    struct Reply: Decodable, Sendable {
        let ok: Bool
        let error: String?
    }
}

/// The daemon's lines, split from what the socket delivers; a line past `maxLineBytes` ends the
/// connection. Each is read as soon as it arrives: the daemon sends the next view only once the
/// last was read, so the console never holds it back.
struct DaemonLines: AsyncSequence, Sendable {
    typealias Element = DaemonLine
    /// A view of 1280 pixels is a JPEG of a few hundred KiB in base64; far more is not the daemon.
    static let maxLineBytes = 16 << 20

    private let inbound: NIOAsyncChannelInboundStream<ByteBuffer>

    init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>) { self.inbound = inbound }

    func makeAsyncIterator() -> Iterator { Iterator(chunks: inbound.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        var buffer = ByteBuffer()

        mutating func next() async throws -> DaemonLine? {
            while true {
                if let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                    let length = newline - buffer.readerIndex
                    let bytes = buffer.readBytes(length: length) ?? []
                    buffer.moveReaderIndex(forwardBy: 1)
                    buffer.discardReadBytes()
                    if let line = Self.line(bytes) { return line }
                    continue
                }
                guard buffer.readableBytes <= DaemonLines.maxLineBytes else { throw ConsoleError("the daemon sent a line longer than 16 MiB") }
                guard var chunk = try await chunks.next() else { return nil }
                buffer.writeBuffer(&chunk)
            }
        }

        private static func line(_ bytes: [UInt8]) -> DaemonLine? {
            guard bytes.first == UInt8(ascii: "{"), let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(bytes)) else { return nil }
            let reply = envelope.type == "reply" ? try? JSONDecoder().decode(DaemonLine.Reply.self, from: Data(bytes)) : nil
            return DaemonLine(type: envelope.type, line: String(decoding: bytes, as: UTF8.self), reply: reply)
        }
    }
}
