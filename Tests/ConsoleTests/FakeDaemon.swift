import Codes
import Foundation
import Imaging
import NIOCore
import NIOPosix
import ScannerProtocol
import Synchronization

/// The daemon's socket as the console sees it, in the test process: a state event to each new
/// connection, one reply to each command (`restrict` takes a connection's control rights, as the
/// daemon does), views and outcomes to the connections that `watch`, when the test sends them.
/// Every line received is logged, and a test waits for the one it expects.
final class FakeDaemon: Sendable {
    /// A line a connection sent, or `<closed>` when it went.
    struct Line: Sendable, Equatable, CustomStringConvertible {
        let connection: Int
        let text: String
        var description: String { "\(connection): \(text)" }
    }

    let path: String
    private let server: any Channel
    private let state = Mutex(State())

    private struct State {
        var lines: [Line] = []
        var waiters: [(predicate: @Sendable (Line) -> Bool, continuation: CheckedContinuation<Line, Never>)] = []
        var clients: [Int: any Channel] = [:]
        var watching: Set<Int> = []
        var restricted: Set<Int> = []
        var next = 0
    }

    private init(path: String, server: any Channel) {
        self.path = path
        self.server = server
    }

    /// Listens at `path` (a file that must not exist).
    static func start(at path: String) async throws -> FakeDaemon {
        let box = Mutex<FakeDaemon?>(nil)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let daemon = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(Connection(daemon: daemon))
                }
            }
            .bind(unixDomainSocketPath: path).get()
        let daemon = FakeDaemon(path: path, server: server)
        box.withLock { $0 = daemon }
        return daemon
    }

    func stop() async {
        try? await server.close()
        for client in state.withLock({ Array($0.clients.values) }) { try? await client.close() }
    }

    /// Waits for the first line, received or to come, that `predicate` takes.
    @discardableResult func waitFor(_ predicate: @escaping @Sendable (Line) -> Bool) async -> Line {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if let line = state.lines.first(where: predicate) {
                    continuation.resume(returning: line)
                } else {
                    state.waiters.append((predicate, continuation))
                }
            }
        }
    }

    /// Waits for `text` from any connection, or from `connection`.
    @discardableResult func waitFor(_ text: String, on connection: Int? = nil) async -> Line {
        await waitFor { $0.text == text && (connection == nil || $0.connection == connection) }
    }

    /// What each connection sent so far, in order.
    func lines(of connection: Int) -> [String] {
        state.withLock { $0.lines.filter { $0.connection == connection }.map(\.text) }
    }

    var allLines: [Line] { state.withLock { $0.lines } }

    /// Writes an event line to every connection that watches.
    func sendToWatchers(_ line: String) {
        for client in state.withLock({ state in state.watching.compactMap { state.clients[$0] } }) {
            client.writeAndFlush(ByteBuffer(string: line + "\n"), promise: nil)
        }
    }

    /// A view event as the daemon sends it, with codes at `corners`.
    static func view(seq: Int, codes: [(symbology: String, text: String)] = []) -> String {
        let list = codes.map { code in
            let text = String(decoding: try! JSONEncoder().encode(code.text), as: UTF8.self)
            return #"{"symbology":"\#(code.symbology)","text":\#(text),"corners":[[10,10],[60,10],[60,40],[10,40]]}"#
        }
        return #"{"type":"view","seq":\#(seq),"frame_width":640,"frame_height":480,"width":320,"height":240,"#
            + #""viewport":{"x":40,"y":0,"width":240,"height":240},"codes":[\#(list.joined(separator: ","))],"jpeg":"/9j/4AAQSkZJRg=="}"#
    }

    static func outcome(seq: Int, text: String, outcome: String = "delivered") -> String {
        #"{"type":"outcome","seq":\#(seq),"symbology":"EAN-13","text":"\#(text)","outcome":"\#(outcome)"}"#
    }

    private func connected(_ channel: any Channel) -> Int {
        let id = state.withLock { state in
            state.next += 1
            state.clients[state.next] = channel
            return state.next
        }
        let event = StateEvent(
            camera: "streaming", device: "/dev/video0", detail: nil, format: "GREY 640x480 @30", torch: false, torchMode: .auto, mode: .presentation,
            paused: false, scanning: true)
        channel.writeAndFlush(ByteBuffer(string: Event.state(event, encoder: .forEvents()) + "\n"), promise: nil)
        return id
    }

    /// Logs the line, wakes who waits for it, and returns the reply.
    private func received(_ text: String, from id: Int) -> String? {
        let line = Line(connection: id, text: text)
        let (woken, reply) = state.withLock { state -> ([CheckedContinuation<Line, Never>], String?) in
            state.lines.append(line)
            let reply = text == "<closed>" ? nil : Self.reply(to: text, from: id, state: &state)
            if text == "<closed>" {
                state.clients[id] = nil
                state.watching.remove(id)
            }
            var woken: [CheckedContinuation<Line, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(line) else { return false }
                woken.append(waiter.continuation)
                return true
            }
            return (woken, reply)
        }
        for continuation in woken { continuation.resume(returning: line) }
        return reply
    }

    private static func reply(to text: String, from id: Int, state: inout State) -> String {
        let words = text.split(separator: " ")
        let verb = String(words.first ?? "")
        func answer(_ ok: Bool, _ error: String? = nil, _ extra: String = "") -> String {
            let problem = error.map { #","error":"\#($0)""# } ?? ""
            return #"{"type":"reply","command":"\#(verb)","ok":\#(ok)\#(problem)\#(extra)}"#
        }
        switch verb {
        case "unsubscribe": return answer(true)
        case "restrict":
            state.restricted.insert(id)
            return answer(true)
        case "watch":
            guard words.count == 3, let fps = Int(words[1]), (1...15).contains(fps), let width = Int(words[2]), (160...1280).contains(width) else {
                return answer(false, "usage: watch FPS WIDTH")
            }
            state.watching.insert(id)
            return answer(true)
        case "unwatch":
            state.watching.remove(id)
            return answer(true)
        case "status":
            return answer(true, nil, #","status":\#(statusJSON(watchers: state.watching.count))"#)
        case "torch", "pause", "resume", "trigger", "beep":
            guard !state.restricted.contains(id) else { return answer(false, "this connection was restricted: no controls") }
            return answer(true)
        default:
            return answer(false, "unknown command '\(verb)'")
        }
    }

    private static func statusJSON(watchers: Int) -> String {
        var counters = CounterSnapshot()
        counters.reads = 12
        counters.framesDecoded = 400
        counters.framesGated = 100
        counters.dropped = ["no-client": 1]
        let encoder = JSONEncoder.forEvents()
        let state = StateEvent(
            camera: "streaming", device: "/dev/video0", detail: nil, format: nil, torch: true, torchMode: .on, mode: .presentation, paused: false,
            scanning: true)
        let stateJSON = String(decoding: try! encoder.encode(state), as: UTF8.self)
        let countersJSON = String(decoding: try! encoder.encode(counters), as: UTF8.self)
        return #"{"state":\#(stateJSON),"counters":\#(countersJSON),"clients":2,"held":0,"awaiting":0,"outputs":[],"watchers":\#(watchers)}"#
    }

    /// One client connection: lines in, replies out, on the connection's event loop.
    private final class Connection: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let daemon: FakeDaemon
        var id = 0
        var buffer = ByteBuffer()

        init(daemon: FakeDaemon) { self.daemon = daemon }

        func channelActive(context: ChannelHandlerContext) {
            id = daemon.connected(context.channel)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var chunk = unwrapInboundIn(data)
            buffer.writeBuffer(&chunk)
            while let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer.readString(length: newline - buffer.readerIndex) ?? ""
                buffer.moveReaderIndex(forwardBy: 1)
                if let reply = daemon.received(line, from: id) {
                    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply + "\n")), promise: nil)
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            _ = daemon.received("<closed>", from: id)
        }
    }
}
