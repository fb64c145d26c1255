import Codes
import FoundationEssentials
import Platform
import SystemPackage

/// A connection to the daemon's socket, read a line at a time (for `listen`, `status`, `snapshot`,
/// `record`, and the MQTT bridge).
public final class SocketLines {
    private let socket: FileDescriptor
    private var buffer: [UInt8] = []
    /// Where the current line starts in `buffer`, and how far it has been searched for a newline.
    private var start = 0
    private var searched = 0
    private var chunk = [UInt8](repeating: 0, count: 256 << 10)

    /// Connects, or throws why it could not. With a `timeout`, `next()` gives up (nil, with
    /// `timedOut` set) when the daemon sends nothing for that many seconds.
    public init(path: String, timeout: Double? = nil) throws(Errno) {
        socket = try UnixAddress.connect(path)
        if let timeout { try? socket.setReceiveTimeout(seconds: timeout) }
    }

    /// Whether the last `next()` returned nil because the daemon was silent past the timeout.
    public private(set) var timedOut = false

    deinit { try? socket.close() }

    /// Sends one command line (a newline is added); an error shows at the next read.
    public func send(_ line: String) {
        _ = try? socket.writeAll((line + "\n").utf8)
    }

    /// Ends the connection both ways, waking a thread blocked in `next()`.
    public func shutdown() {
        try? socket.shutdown()
    }

    /// Tells the daemon this connection is a tool's, not a consumer of scans (`unsubscribe`), and
    /// reads up to its reply: no read, held or new, is ever written to it (docs/socket-protocol.md).
    public func declareTool() {
        send("unsubscribe")
        while let line = next() {
            if line == Data("ok".utf8) || line.starts(with: Data("error: ".utf8)) { return }
            if EventLine(line)?.envelope.type == "reply" { return }
        }
    }

    /// The next line that is a JSON event, skipping plain-format read lines. A frame's base64
    /// pixels are cut out before the JSON decoder sees them, and come back decoded beside the event
    /// (decoding them as a JSON string would cost more than a frame interval).
    public func nextEvent() -> EventLine? {
        while var line = next() {
            guard line.first == UInt8(ascii: "{") else { continue }
            var luma: Data?
            if let field = line.firstRange(of: Array(#""luma":""#.utf8)), let end = Self.quote(in: line, from: field.upperBound) {
                luma = Data(base64Encoded: line[field.upperBound..<end])
                line.removeSubrange(field.upperBound..<end)
            }
            if var event = EventLine(line) {
                event.luma = luma
                return event
            }
        }
        return nil
    }

    /// The index of the first `"` at or after `offset`.
    private static func quote(in line: Data, from offset: Int) -> Int? {
        line.withUnsafeBytes { $0.firstIndex(of: UInt8(ascii: "\""), from: offset) }
    }

    /// The next line, or nil when the daemon closed the connection.
    public func next() -> Data? {
        while true {
            let found = buffer.withUnsafeBytes { $0.firstIndex(of: UInt8(ascii: "\n"), from: searched) }
            if let newline = found {
                let line = Data(buffer[start..<newline])
                start = newline + 1
                searched = start
                return line
            }
            searched = buffer.count
            // Drop consumed bytes before reading more, so the buffer holds one line at most.
            if start > 0 {
                buffer.removeFirst(start)
                searched -= start
                start = 0
            }
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
            } catch {
                timedOut = error as? Errno == .wouldBlock
                return nil
            }
            if count == 0 { return nil }
            chunk.withUnsafeBytes { buffer.append(contentsOf: $0.prefix(count)) }
        }
    }
}

/// One JSON line from the daemon: its `type` (and a reply's `command`), decoded further on demand
/// into the protocol's types.
public struct EventLine {
    public let envelope: Envelope
    public let line: Data
    /// A frame's pixels, cut out of `line` by `SocketLines.nextEvent()`.
    public var luma: Data?

    /// Nil when `line` is not a JSON object with a `type`.
    public init?(_ line: Data) {
        guard line.first == UInt8(ascii: "{"), let envelope = try? JSONDecoder().decode(Envelope.self, from: line) else { return nil }
        self.envelope = envelope
        self.line = line
    }

    /// The line as `type`; nil when it does not decode as one.
    public func decode<T: Decodable>(_ type: T.Type) -> T? {
        try? JSONDecoder.forEvents().decode(type, from: line)
    }
}
