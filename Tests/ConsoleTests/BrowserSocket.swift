import Foundation
import NIOCore
import NIOPosix

/// A WebSocket opened as a browser opens one: the upgrade request with the headers a browser
/// sends (Origin, the session cookie), then masked text frames out and text frames in. Small, so
/// that a test controls every header (a general client sets Origin itself). As a browser, it reads
/// all the time, whatever the test is doing, and answers each ping at once: the server closes a
/// stream whose pings go unanswered for half a minute, which a test held up on a busy machine (or
/// waiting for something else) can take.
struct BrowserSocket {
    /// The upgrade's answer: 101, or the status that refused it.
    let status: Int
    private let messages: Messages
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Opens `/ws` on `localhost:port` with `headers` (and `host` as the Host header, by default
    /// `localhost:PORT`), runs `body` and closes.
    static func open<Result: Sendable>(
        port: Int, host: String? = nil, headers: [(String, String)], _ body: (BrowserSocket) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "localhost", port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        return try await channel.executeThenClose { inbound, outbound in
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            var request = "GET /ws HTTP/1.1\r\nHost: \(host ?? "localhost:\(port)")\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
            for (name, value) in headers { request += "\(name): \(value)\r\n" }
            try await outbound.write(ByteBuffer(string: request + "\r\n"))
            let reader = Inbound(inbound.makeAsyncIterator())
            let status = try await reader.responseStatus()
            let (messages, received) = AsyncThrowingStream.makeStream(of: String.self)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                if status == 101 {
                    group.addTask {
                        do {
                            while let text = try await reader.message(pong: { try await Self.write(opcode: 0xA, $0, to: outbound) }) {
                                received.yield(text)
                            }
                            received.finish()
                        } catch {
                            received.finish(throwing: error)
                        }
                    }
                } else {
                    received.finish()
                }
                let socket = BrowserSocket(status: status, messages: Messages(messages), outbound: outbound)
                let result = try await body(socket)
                if status == 101 { try? await Self.write(opcode: 0x8, [], to: outbound) }
                group.cancelAll()
                return result
            }
        }
    }

    /// The next text message, or nil when the server closed.
    func next() async throws -> String? { try await messages.next() }

    /// The next message that decodes as a JSON object of `type`, skipping others.
    func next(type: String) async throws -> [String: Any]? {
        while let text = try await next() {
            if let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], object["type"] as? String == type { return object }
        }
        return nil
    }

    /// Sends a text message.
    func send(_ text: String) async throws { try await Self.write(opcode: 0x1, Array(text.utf8), to: outbound) }

    private static func write(opcode: UInt8, _ payload: [UInt8], to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try await outbound.write(ByteBuffer(bytes: frame))
    }

    /// The text messages the reader took, for the test to read one at a time.
    final class Messages: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<String, any Error>.AsyncIterator

        init(_ stream: AsyncThrowingStream<String, any Error>) { iterator = stream.makeAsyncIterator() }

        func next() async throws -> String? { try await iterator.next() }
    }

    /// The bytes from the server, read as the HTTP response head, then as frames.
    final class Inbound: @unchecked Sendable {
        private var chunks: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        private var buffer = ByteBuffer()

        init(_ chunks: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) { self.chunks = chunks }

        private func fill() async throws -> Bool {
            guard var chunk = try await chunks.next() else { return false }
            buffer.writeBuffer(&chunk)
            return true
        }

        func responseStatus() async throws -> Int {
            while true {
                if let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = buffer.readString(length: end.upperBound - buffer.readerIndex) ?? ""
                    return Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                }
                guard try await fill() else { return 0 }
            }
        }

        /// The next text message, each ping on the way answered with `pong`; nil once the server
        /// closed.
        func message(pong: ([UInt8]) async throws -> Void) async throws -> String? {
            var message: [UInt8] = []
            while true {
                guard let (opcode, final, payload) = try await frame() else { return nil }
                switch opcode {
                case 0x8: return nil
                case 0x9: try await pong(payload)
                case 0xA: continue
                default:
                    message += payload
                    if final { return String(decoding: message, as: UTF8.self) }
                }
            }
        }

        private func frame() async throws -> (UInt8, Bool, [UInt8])? {
            while true {
                let bytes = Array(buffer.readableBytesView)
                if bytes.count >= 2 {
                    var length = Int(bytes[1] & 0x7F)
                    var offset = 2
                    if length == 126, bytes.count >= 4 {
                        length = Int(bytes[2]) << 8 | Int(bytes[3])
                        offset = 4
                    } else if length == 127, bytes.count >= 10 {
                        length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
                        offset = 10
                    }
                    if length < 126 || offset > 2, bytes.count >= offset + length {
                        buffer.moveReaderIndex(forwardBy: offset + length)
                        return (bytes[0] & 0x0F, bytes[0] & 0x80 != 0, Array(bytes[offset..<(offset + length)]))
                    }
                }
                guard try await fill() else { return nil }
            }
        }
    }
}
