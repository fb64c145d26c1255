import FoundationEssentials
import Glibc
import Outputs
import ScannerCore

/// The lines the socket sends, as JSON objects with a `type`, or as plain text.
enum Event {
    /// `{"type":"scan", ...the read}`.
    static func scan(_ read: Read, encoder: JSONEncoder) -> String {
        json(TypedRead(read: read), encoder: encoder)
    }

    /// `{"type":"state","camera":...,"torch":...,"mode":...}`.
    static func state(_ snapshot: ScannerSnapshot, encoder: JSONEncoder) -> String {
        json(StateEvent(snapshot), encoder: encoder)
    }

    /// A reply to a command, with optional extra fields (`status` carries the whole state).
    static func reply(_ command: String?, ok: Bool, error: String? = nil, status: StatusReply? = nil, metrics: String? = nil, frame: FrameEvent? = nil, encoder: JSONEncoder) -> String {
        json(Reply(command: command, ok: ok, error: error, status: status, metrics: metrics, frame: frame), encoder: encoder)
    }

    /// `{"type":"frame", ...}`: one frame of a recording.
    static func frame(_ frame: TappedFrame, encoder: JSONEncoder) -> String {
        withLuma(json(FrameEvent(frame), encoder: encoder), frame)
    }

    /// Puts the frame's pixels into an encoded line: base64 needs no JSON escaping, and encoding a
    /// third of a megabyte through JSONEncoder would cost more than the frame interval.
    static func withLuma(_ line: String, _ frame: TappedFrame) -> String {
        // Keys are sorted: "luma" is the first key that can hold text, so its first match is the field.
        let empty = "\"luma\":\"\""
        guard let field = line.utf8.firstRange(of: empty.utf8) else { return line }
        var filled = line
        filled.replaceSubrange(field, with: "\"luma\":\"" + Data(frame.luma).base64EncodedString() + "\"")
        return filled
    }

    /// `{"type":"record-end","skipped":N}`: the recording is over; N frames came while the client was busy.
    static func recordEnd(skipped: Int, encoder: JSONEncoder) -> String {
        json(RecordEnd(skipped: skipped), encoder: encoder)
    }

    private static func json(_ value: some Encodable, encoder: JSONEncoder) -> String {
        // Encoding our own value types cannot fail; an empty object would still keep the stream line-framed.
        (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }
}

/// What `status` replies, beside the counters.
struct StatusReply: Encodable {
    let state: StateEvent
    let counters: Counters.Snapshot
    let clients: Int
    let held: Int
    /// Decode time quantiles in milliseconds (bucket upper bounds), when anything was decoded.
    let decodeMsP50: Double?
    let decodeMsP99: Double?
    /// Outputs besides the socket.
    let outputs: [OutputHealth]

    init(state: StateEvent, counters: Counters.Snapshot, clients: Int, held: Int, outputs: [OutputHealth]) {
        self.state = state
        self.counters = counters
        self.clients = clients
        self.held = held
        self.outputs = outputs
        decodeMsP50 = counters.decodeQuantile(0.5).map { $0 * 1000 }
        decodeMsP99 = counters.decodeQuantile(0.99).map { $0 * 1000 }
    }

    enum CodingKeys: String, CodingKey {
        case state, counters, clients, held, outputs, decodeMsP50 = "decode_ms_p50", decodeMsP99 = "decode_ms_p99"
    }
}

private struct TypedRead: Encodable {
    let read: Read
    enum CodingKeys: String, CodingKey { case type }
    func encode(to encoder: any Encoder) throws {
        try read.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("scan", forKey: .type)
    }
}

struct StateEvent: Encodable {
    let type = "state"
    let camera: String
    let device: String
    let detail: String?
    let format: String?
    let torch: String
    let torchMode: TorchMode
    let mode: ReadMode
    let paused: Bool
    let scanning: Bool

    init(_ snapshot: ScannerSnapshot) {
        camera = snapshot.camera.state.rawValue
        device = snapshot.camera.device
        detail = snapshot.camera.detail
        format = snapshot.camera.format
        torch = snapshot.torch ? "on" : "off"
        torchMode = snapshot.torchMode
        mode = snapshot.mode
        paused = snapshot.paused
        scanning = snapshot.scanning
    }

    enum CodingKeys: String, CodingKey {
        case type, camera, device, detail, format, torch, torchMode = "torch_mode", mode, paused, scanning
    }
}

private struct Reply: Encodable {
    let type = "reply"
    let command: String?
    let ok: Bool
    let error: String?
    let status: StatusReply?
    let metrics: String?
    let frame: FrameEvent?
}

/// A frame as `snapshot` and `record` send it: the luma plane in base64, `width` bytes per row.
struct FrameEvent: Encodable {
    let type = "frame"
    let sequence: UInt64
    let timestampNs: UInt64
    let width: Int
    let height: Int
    let viewport: PixelRect
    let symbols: [Read]
    let reads: [Read]
    let luma: String

    init(_ frame: TappedFrame) {
        sequence = frame.sequence
        timestampNs = frame.timestamp
        width = frame.width
        height = frame.height
        viewport = frame.viewport
        symbols = frame.symbols
        reads = frame.reads
        // Filled in by `Event.withLuma`.
        luma = ""
    }

    enum CodingKeys: String, CodingKey {
        case type, sequence, timestampNs = "timestamp_ns", width, height, viewport, symbols, reads, luma
    }
}

private struct RecordEnd: Encodable {
    let type = "record-end"
    let skipped: Int
}
