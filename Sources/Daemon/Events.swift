import Foundation
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
    static func reply(_ command: String?, ok: Bool, error: String? = nil, status: StatusReply? = nil, metrics: String? = nil, encoder: JSONEncoder) -> String {
        json(Reply(command: command, ok: ok, error: error, status: status, metrics: metrics), encoder: encoder)
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

    init(state: StateEvent, counters: Counters.Snapshot, clients: Int, held: Int) {
        self.state = state
        self.counters = counters
        self.clients = clients
        self.held = held
        decodeMsP50 = counters.decodeQuantile(0.5).map { $0 * 1000 }
        decodeMsP99 = counters.decodeQuantile(0.99).map { $0 * 1000 }
    }

    enum CodingKeys: String, CodingKey {
        case state, counters, clients, held, decodeMsP50 = "decode_ms_p50", decodeMsP99 = "decode_ms_p99"
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
}
