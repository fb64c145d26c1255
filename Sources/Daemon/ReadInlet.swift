import Codes
import Dispatch
import FoundationEssentials
import NIOCore
import ScannerProtocol

/// Where the capture loop hands reads (and the scanner's state changes) over. The socket's line is
/// made here, on a queue of its own: formatting rules and GTIN options never run on the event loop
/// nor in capture, and the queue keeps the order of reads and states. Then they cross to
/// `Delivery`'s loop.
struct ReadInlet: ReadSink {
    let delivery: NIOLoopBound<Delivery>
    let config: SocketConfig
    private let queue = DispatchQueue(label: "kiosk-scanner.formatting")

    init(delivery: NIOLoopBound<Delivery>, config: SocketConfig) {
        self.delivery = delivery
        self.config = config
    }

    func deliver(_ read: Read) {
        queue.async { [delivery, config] in
            let line = Self.line(for: read, config: config, encoder: JSONEncoder.forEvents())
            delivery.eventLoop.execute { delivery.value.accept(read, line: line) }
        }
    }

    /// Sends a `state` event to every client, through the same queue as reads: a POS sees the scan
    /// before the state that followed it (a trigger session ends with its read).
    func publish(_ snapshot: ScannerSnapshot) {
        queue.async { [delivery] in
            delivery.eventLoop.execute { delivery.value.publish(snapshot) }
        }
    }

    /// The socket's line for `read`, or nil when a formatting rule sends it as nothing. JSON carries
    /// the read as decoded, and the formatted text beside it when there is formatting.
    /// `socket.control_characters` acts on the formatted text (`text` in JSON stays as decoded).
    static func line(for read: Read, config: SocketConfig, encoder: JSONEncoder) -> String? {
        guard let formatted = config.formatting.shownText(for: read) else { return nil }
        let shown = config.controlCharacters == .keep ? formatted : config.controlCharacters.apply(to: formatted)
        guard config.format == .json else { return shown.escapedForPlainLine }
        let asDecoded = config.formatting.isIdentity && config.controlCharacters == .keep
        return Event.scan(read, formatted: asDecoded ? nil : shown, encoder: encoder)
    }
}

extension String {
    /// The plain-mode line of a read's text, with line breaks escaped so that one read stays one line.
    var escapedForPlainLine: String {
        escaping(["\r": "\\r", "\n": "\\n"])
    }

    /// The string with each of `replacements`' scalars replaced by its text. By scalar, not by
    /// Character: "\r\n" is one Character, and both of its scalars must be escaped.
    func escaping(_ replacements: [Unicode.Scalar: String]) -> String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let replacement = replacements[scalar] { escaped += replacement } else { escaped.unicodeScalars.append(scalar) }
        }
        return escaped
    }
}
