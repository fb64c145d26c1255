import Codes
import FoundationEssentials
import Imaging

/// The lines the socket sends in its JSON format, each an object with a `type`. The daemon encodes
/// them, the command-line tools (`status`, `listen`, `snapshot`, `record`) decode them.
public enum Event {
    /// `{"type":"scan", ...the read}`.
    public static func scan(_ read: Read, formatted: String? = nil, encoder: JSONEncoder) -> String {
        json(ScanEvent(read: read, formatted: formatted), encoder: encoder)
    }

    /// `{"type":"state","camera":...,"torch":...,"mode":...}`.
    public static func state(_ state: StateEvent, encoder: JSONEncoder) -> String {
        json(state, encoder: encoder)
    }

    /// A reply to a command, with optional extra fields (`status` carries the whole state).
    public static func reply(
        _ command: String?, ok: Bool, error: String? = nil, status: StatusReply? = nil, metrics: String? = nil,
        frame: FrameEvent? = nil, encoder: JSONEncoder
    ) -> String {
        json(Reply(command: command, ok: ok, error: error, status: status, metrics: metrics, frame: frame), encoder: encoder)
    }

    /// `{"type":"frame", ...}`: one frame of a recording, its pixels in `luma`.
    public static func frame(_ frame: FrameEvent, luma: [UInt8], encoder: JSONEncoder) -> String {
        withLuma(json(frame, encoder: encoder), luma)
    }

    /// Puts a frame's pixels into an encoded line: base64 needs no JSON escaping, and encoding a
    /// third of a megabyte through JSONEncoder would cost more than the frame interval.
    public static func withLuma(_ line: String, _ luma: [UInt8]) -> String {
        filling("luma", in: line, with: luma)
    }

    /// `line` with its empty string field `key` holding `bytes` in base64. The first match is the
    /// field: keys are sorted, and within a string every quote is escaped, so the pattern (which
    /// has quotes) can only be a key.
    static func filling(_ key: String, in line: String, with bytes: [UInt8]) -> String {
        let empty = "\"\(key)\":\"\""
        guard let field = line.utf8.firstRange(of: empty.utf8) else { return line }
        var filled = line
        filled.replaceSubrange(field, with: "\"\(key)\":\"" + Data(bytes).base64EncodedString() + "\"")
        return filled
    }

    /// `{"type":"record-end","skipped":N}`: the recording is over; N frames came while the client was busy.
    public static func recordEnd(skipped: Int, encoder: JSONEncoder) -> String {
        json(RecordEnd(skipped: skipped), encoder: encoder)
    }

    static func json(_ value: some Encodable, encoder: JSONEncoder) -> String {
        // Encoding our own value types cannot fail; an empty object would still keep the stream line-framed.
        (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }
}

/// The fields every event has: what a client reads first to know which type to decode.
public struct Envelope: Decodable, Sendable {
    public let type: String
    /// Replies only: the command answered.
    public let command: String?
}

/// `{"type":"scan", ...}`: a read, its fields at the top level beside `type`.
public struct ScanEvent: Codable, Sendable {
    public let read: Read
    /// The data as the socket's formatting (`socket.gtin`, `socket.rules`) sends it, shown as text;
    /// present only when the socket has formatting.
    public let formatted: String?

    public init(read: Read, formatted: String? = nil) {
        self.read = read
        self.formatted = formatted
    }

    enum CodingKeys: String, CodingKey { case type, formatted }

    public init(from decoder: any Decoder) throws {
        read = try Read(from: decoder)
        formatted = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .formatted)
    }

    public func encode(to encoder: any Encoder) throws {
        try read.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("scan", forKey: .type)
        try container.encodeIfPresent(formatted, forKey: .formatted)
    }
}

/// `{"type":"state", ...}`: the camera, the torch and the mode, sent on every change.
public struct StateEvent: Codable, Sendable, Equatable {
    public var type = "state"
    /// A camera state (`CameraState`'s raw value: streaming, unavailable, busy...).
    public var camera: String
    public var device: String
    public var detail: String?
    public var format: String?
    /// `on` or `off`.
    public var torch: String
    public var torchMode: TorchMode
    public var mode: ReadMode
    public var paused: Bool
    public var scanning: Bool

    public init(
        camera: String, device: String, detail: String?, format: String?, torch: Bool, torchMode: TorchMode, mode: ReadMode,
        paused: Bool, scanning: Bool
    ) {
        self.camera = camera
        self.device = device
        self.detail = detail
        self.format = format
        self.torch = torch ? "on" : "off"
        self.torchMode = torchMode
        self.mode = mode
        self.paused = paused
        self.scanning = scanning
    }

    enum CodingKeys: String, CodingKey {
        case type, camera, device, detail, format, torch
        case torchMode = "torch_mode"
        case mode, paused, scanning
    }
}

/// What `status` replies, beside the counters.
public struct StatusReply: Codable, Sendable {
    public let state: StateEvent
    public let counters: CounterSnapshot
    public let clients: Int
    public let held: Int
    /// Reads written to consumers that none has read (or, with `socket.acknowledge: required`, acked) yet.
    public let awaiting: Int
    /// Connections with a `watch` running.
    public let watchers: Int
    /// Decode time quantiles in milliseconds (bucket upper bounds), when anything was decoded. One in
    /// the +Inf bucket is given as the highest finite bound, as Prometheus's `histogram_quantile`
    /// does: JSON has no number for infinity.
    public let decodeMsP50: Double?
    public let decodeMsP99: Double?
    /// Outputs besides the socket.
    public let outputs: [OutputStatus]
    /// Made anew at each daemon start: with a read's `seq` (which starts again at 1), it names one
    /// read for good, so that a consumer can drop a duplicate (the MQTT bridge sends both).
    public let bootID: String?

    public init(
        state: StateEvent, counters: CounterSnapshot, clients: Int, held: Int, awaiting: Int = 0, watchers: Int = 0, outputs: [OutputStatus],
        bootID: String? = nil
    ) {
        self.bootID = bootID
        self.awaiting = awaiting
        self.watchers = watchers
        self.state = state
        self.counters = counters
        self.clients = clients
        self.held = held
        self.outputs = outputs
        let highest = CounterSnapshot.decodeBuckets.last ?? 1
        decodeMsP50 = counters.decodeQuantile(0.5).map { min($0, highest) * 1000 }
        decodeMsP99 = counters.decodeQuantile(0.99).map { min($0, highest) * 1000 }
    }

    enum CodingKeys: String, CodingKey {
        case state, counters, clients, held, awaiting, watchers, outputs
        case bootID = "boot_id"
        case decodeMsP50 = "decode_ms_p50"
        case decodeMsP99 = "decode_ms_p99"
    }
}

/// `{"type":"reply", ...}`: the one answer to each command line. Clients decode it; only
/// `Event.reply` makes one.
public struct Reply: Codable, Sendable {
    public var type = "reply"
    public let command: String?
    public let ok: Bool
    public let error: String?
    public let status: StatusReply?
    public let metrics: String?
    public let frame: FrameEvent?
}

/// A frame as `snapshot` and `record` send it: the luma plane in base64, `width` bytes per row.
public struct FrameEvent: Codable, Sendable {
    public var type = "frame"
    public let sequence: UInt64
    public let timestampNs: UInt64
    public let width: Int
    public let height: Int
    public let viewport: PixelRect
    /// The codes found in the frame, and the reads made from it.
    public let symbols: [Read]
    public let reads: [Read]
    /// Base64; the daemon encodes it empty and fills it in with `Event.withLuma`.
    public let luma: String

    public init(sequence: UInt64, timestampNs: UInt64, width: Int, height: Int, viewport: PixelRect, symbols: [Read], reads: [Read], luma: String = "") {
        self.sequence = sequence
        self.timestampNs = timestampNs
        self.width = width
        self.height = height
        self.viewport = viewport
        self.symbols = symbols
        self.reads = reads
        self.luma = luma
    }

    enum CodingKeys: String, CodingKey {
        case type, sequence
        case timestampNs = "timestamp_ns"
        case width, height, viewport, symbols, reads, luma
    }
}

/// `{"type":"record-end","skipped":N}`.
public struct RecordEnd: Codable, Sendable {
    public var type = "record-end"
    public let skipped: Int

    public init(skipped: Int) { self.skipped = skipped }
}
