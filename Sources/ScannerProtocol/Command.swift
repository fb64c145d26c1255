import Codes

/// A line a client sends on the socket, parsed. Every line gets exactly one reply line.
public enum Command: Equatable, Sendable {
    case status
    /// This connection consumes scans: reads are written to it (and the held ones first).
    case subscribe
    /// This connection does not consume scans (a tool: `kiosk-scanner status`, `snapshot`, `record`).
    case unsubscribe
    case pause
    case resume
    case trigger
    case torch(TorchMode)
    case beep
    /// The counters in Prometheus text format.
    case metrics
    /// The next frame, with the viewport and the codes found in it (a JSON reply, for `kiosk-scanner snapshot`).
    case snapshot
    /// Every frame for this many seconds, as JSON `frame` events (for `kiosk-scanner record`).
    case record(seconds: Double)
    /// The consumer took read `seq` (nil: the oldest read awaiting this connection's answer).
    case ack(seq: UInt64?)
    /// The consumer refuses read `seq` (nil: the oldest awaiting); `reason` may name a feedback pattern.
    case nak(seq: UInt64?, reason: String?)
    /// A console's view of the camera: `view` events (a JPEG `width` pixels wide at most, `fps` a
    /// second at most) and an `outcome` event for every read, until `unwatch`.
    case watch(fps: Int, width: Int)
    /// Ends this connection's `watch`.
    case unwatch
    /// This connection gives up the control commands for good; camera images stay if its peer may take them.
    case restrict

    /// The longest recording one `record` command asks for.
    public static let maxRecordSeconds = 3600.0

    /// The views a second `watch` may ask for, and what it gets without asking.
    public static let watchFPS = 1...15
    public static let defaultWatchFPS = 4
    /// The widths in pixels a `watch` may ask for (a frame is never scaled up), and the default.
    public static let watchWidth = 160...1280
    public static let defaultWatchWidth = 640

    /// The longest command line accepted; longer lines get an error reply and are discarded.
    public static let maxLineBytes = 256

    /// Parses one line (without its newline); the error text is what the client is told.
    public static func parse(_ line: String) -> Result<Command, CommandError> {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map { $0.lowercased() }
        guard let verb = words.first else { return .failure(CommandError("empty command")) }
        let arguments = words.dropFirst()
        func bare(_ command: Command) -> Result<Command, CommandError> {
            arguments.isEmpty ? .success(command) : .failure(CommandError("'\(verb)' takes no argument"))
        }
        switch verb {
        case "status": return bare(.status)
        case "subscribe": return bare(.subscribe)
        case "unsubscribe": return bare(.unsubscribe)
        case "pause": return bare(.pause)
        case "resume": return bare(.resume)
        case "trigger": return bare(.trigger)
        case "beep": return bare(.beep)
        case "metrics": return bare(.metrics)
        case "snapshot": return bare(.snapshot)
        case "unwatch": return bare(.unwatch)
        case "restrict": return bare(.restrict)
        case "watch":
            let numbers = arguments.compactMap { Int($0) }
            let fps = numbers.first ?? defaultWatchFPS
            let width = numbers.dropFirst().first ?? defaultWatchWidth
            guard numbers.count == arguments.count, numbers.count <= 2, watchFPS.contains(fps), watchWidth.contains(width) else {
                return .failure(
                    CommandError(
                        "usage: watch [FPS] [WIDTH] (FPS \(watchFPS.lowerBound) to \(watchFPS.upperBound), default \(defaultWatchFPS); WIDTH \(watchWidth.lowerBound) to \(watchWidth.upperBound) pixels, default \(defaultWatchWidth))"
                    ))
            }
            return .success(.watch(fps: fps, width: width))
        case "record":
            guard arguments.count == 1, let seconds = Double(arguments.first!), seconds > 0, seconds <= maxRecordSeconds else {
                return .failure(CommandError("usage: record SECONDS (more than 0, at most \(Int(maxRecordSeconds)))"))
            }
            return .success(.record(seconds: seconds))
        case "ack":
            guard arguments.count <= 1 else { return .failure(CommandError("usage: ack [SEQ]")) }
            guard let word = arguments.first else { return .success(.ack(seq: nil)) }
            guard let seq = UInt64(word) else { return .failure(CommandError("usage: ack [SEQ] (SEQ is a read's seq)")) }
            return .success(.ack(seq: seq))
        case "nak":
            // `nak`, `nak SEQ`, `nak REASON` or `nak SEQ REASON`: a word of digits is the seq.
            var rest = arguments[...]
            let seq = rest.first.flatMap { UInt64($0) }
            if seq != nil { rest = rest.dropFirst() }
            guard rest.count <= 1, rest.allSatisfy(Command.isReason) else {
                return .failure(CommandError("usage: nak [SEQ] [REASON] (REASON: letters, digits, '-' and '_', at most 32)"))
            }
            return .success(.nak(seq: seq, reason: rest.first))
        case "torch":
            guard arguments.count == 1, let mode = TorchMode(rawValue: arguments.first!) else {
                return .failure(CommandError("usage: torch on|off|auto"))
            }
            return .success(.torch(mode))
        default:
            return .failure(
                CommandError(
                    "unknown command '\(String(verb.prefix(32)))' (commands: subscribe, unsubscribe, status, metrics, pause, resume, trigger, torch on|off|auto, beep, snapshot, record SECONDS, watch [FPS] [WIDTH], unwatch, restrict, ack [SEQ], nak [SEQ] [REASON])"
                ))
        }
    }

    /// The command's name, as echoed in replies.
    public var name: String {
        switch self {
        case .status: "status"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .pause: "pause"
        case .resume: "resume"
        case .trigger: "trigger"
        case .torch: "torch"
        case .beep: "beep"
        case .metrics: "metrics"
        case .snapshot: "snapshot"
        case .record: "record"
        case .ack: "ack"
        case .nak: "nak"
        case .watch: "watch"
        case .unwatch: "unwatch"
        case .restrict: "restrict"
        }
    }
}

/// Why a command line was refused.
public struct CommandError: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

extension Command {
    /// Whether `word` may be a nak's reason (which is also logged), and so name a feedback pattern
    /// (`feedback.named`): lower-case letters, digits, '-' and '_', at most 32.
    public static func isReason(_ word: String) -> Bool {
        (1...32).contains(word.utf8.count)
            && word.utf8.allSatisfy { $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
    }
}
