import Codes
import FoundationEssentials
import Platform
import ScannerProtocol

/// The daemon's `status` reply, as much of it as the health view needs. `watchers` is newer than
/// some daemons, so it may be missing.
struct StatusSnapshot: Decodable, Sendable {
    let state: StateEvent
    let counters: CounterSnapshot
    let watchers: Int?

    /// The `status` inside a reply line; nil for anything else.
    static func inReply(_ line: String) -> StatusSnapshot? {
        struct Line: Decodable { let status: StatusSnapshot? }
        return (try? JSONDecoder.forEvents().decode(Line.self, from: Data(line.utf8)))?.status
    }
}

/// One point of the health charts: the daemon's state at a poll, and its rates over the interval
/// since the poll before (decode time quantiles of the decodes in it, reads and drops a minute, the
/// share of frames the change gate kept from the decoders). Its keys go to the page in snake case
/// (`JSONEncoder.forPage`).
struct HealthSample: Encodable, Sendable, Equatable {
    /// Seconds on the console's clock.
    var at: Double
    /// The camera's state (`streaming`, `interrupted`...), as the daemon's `state` event names it.
    var camera: String
    /// The torch, `on` or `off`, and its mode (`auto`, `on`, `off`).
    var torch: String, torchMode: String
    /// `presentation` or `trigger`, and whether scanning is paused.
    var mode: String
    var paused: Bool
    /// Milliseconds, over the decodes since the poll before; nil when there were none.
    var decodeMsP50: Double?, decodeMsP99: Double?
    /// Since the poll before; nil for the first poll.
    var readsPerMinute: Double?, droppedPerMinute: Double?
    /// Reads dropped since the daemon started, by reason.
    var dropped: [String: Int]
    /// Frames the change gate kept from the decoders: since the daemon started, and the share of
    /// the frames since the poll before.
    var framesGated: Int
    var gatedPercent: Double?
    /// Consoles watching; nil from a daemon that does not say.
    var watchers: Int?
}

/// The samples of the last `span`, each made from a status and the one before it (pure: the
/// monitor feeds it).
struct HealthHistory: Sendable {
    let capacity: Int
    private(set) var samples: [HealthSample] = []
    private var previous: (counters: CounterSnapshot, at: Instant)?

    init(span: Duration, interval: Duration) {
        capacity = max(1, Int((span / interval).rounded(.up)))
    }

    /// Adds the sample `status` makes at `time`, and returns it.
    mutating func add(_ status: StatusSnapshot, at time: Instant, origin: Instant) -> HealthSample {
        let counters = status.counters
        var sample = HealthSample(
            at: (time - origin).seconds, camera: status.state.camera, torch: status.state.torch, torchMode: status.state.torchMode.rawValue,
            mode: status.state.mode.rawValue, paused: status.state.paused, dropped: counters.dropped, framesGated: counters.framesGated,
            watchers: status.watchers)
        // Counters that went down belong to a daemon that started again: no rates across it.
        if let previous, counters.reads >= previous.counters.reads, counters.framesDecoded >= previous.counters.framesDecoded,
            counters.decodeHistogram.count == previous.counters.decodeHistogram.count
        {
            let minutes = (time - previous.at).seconds / 60
            var interval = CounterSnapshot()
            interval.decodeHistogram = zip(counters.decodeHistogram, previous.counters.decodeHistogram).map { max(0, $0 - $1) }
            sample.decodeMsP50 = interval.decodeQuantile(0.5).map(Self.milliseconds)
            sample.decodeMsP99 = interval.decodeQuantile(0.99).map(Self.milliseconds)
            if minutes > 0 {
                sample.readsPerMinute = Double(counters.reads - previous.counters.reads) / minutes
                let dropped = counters.dropped.values.reduce(0, +) - previous.counters.dropped.values.reduce(0, +)
                sample.droppedPerMinute = Double(max(0, dropped)) / minutes
            }
            let gated = counters.framesGated - previous.counters.framesGated
            let decoded = counters.framesDecoded - previous.counters.framesDecoded
            if gated >= 0, gated + decoded > 0 { sample.gatedPercent = 100 * Double(gated) / Double(gated + decoded) }
        }
        previous = (counters, time)
        samples.append(sample)
        if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        return sample
    }

    /// A bucket bound in seconds as milliseconds; the open last bucket (+Inf) as its lower bound's double.
    private static func milliseconds(_ seconds: Double) -> Double {
        seconds.isFinite ? seconds * 1000 : (CounterSnapshot.decodeBuckets.last ?? 1) * 2000
    }
}

/// What goes to the page about health: a new sample, or why there is none.
struct HealthMessage: Encodable {
    var type = "health"
    var sample: HealthSample?
    /// Why the daemon cannot be asked, while it cannot.
    var daemon: String?
}

/// The history the page loads at start (`GET /api/health`).
struct HealthHistoryMessage: Encodable {
    let interval: Double
    let samples: [HealthSample]
    let daemon: String?
}
