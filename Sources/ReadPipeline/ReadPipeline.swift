import Codes
import Decoding
import Imaging
import Platform

/// What the read pipeline needs of the config.
public struct PipelineConfig: Sendable, Hashable {
    public var viewport = Viewport.standard
    public var decoder = DecoderConfig()
    public var tracking = TrackingConfig()
    public var gating = GatingConfig()
    public var pack = PackConfig()
    public var documents = DocumentsConfig()
    /// Trigger mode: each scanning session reads what is in view, even what the last session read
    /// (the daemon sets it from `scanner.mode`).
    public var sessions = false

    public init() {}
}

/// The path from a frame to its reads, as one value: the change gate, the look schedule, the
/// decoder, the tracker and the pack merger. The capture loop feeds it frames and hands its reads
/// to delivery; tests feed it scripted frames on a scripted clock. Times are `Instant`s of the one
/// clock, which also stamps frames.
public struct ReadPipeline {
    public private(set) var config: PipelineConfig
    /// Nil when the decoder config could not be used (`decoderError` says why): frames then give no reads.
    public private(set) var decoder: (any Decoder)?
    public private(set) var decoderError: DecoderError?
    private var gate: ChangeGate
    private var schedule: LookSchedule
    private var tracker: Tracker
    private var motion = SceneMotion()
    private var pack: PackMerger
    private var wasScanning = false
    /// A read ended the trigger session: the next scanning frame starts a new one, even when the
    /// next trigger came before the pipeline saw scanning stop.
    private var sessionEnded = false
    /// The time of the last frame decided on while scanning.
    private var latest: Double?

    public init(config: PipelineConfig) {
        self.config = config
        gate = ChangeGate(config: config.gating.following(config.tracking))
        tracker = Tracker(config: config.tracking)
        pack = PackMerger(config: config.pack)
        let (decoder, error) = Self.makeDecoder(config.decoder)
        (self.decoder, decoderError) = (decoder, error)
        schedule = LookSchedule(passes: decoder?.passes ?? [])
    }

    /// What one frame gave.
    public struct Outcome {
        /// The codes its decode found, in the viewport; nil when it was not decoded.
        public var symbols: [Symbol]?
        /// New reads to deliver, in the order found (a pack's codes merged).
        public var reads: [Read] = []
        /// The gate found it unchanged and no decode due.
        public var gated = false
        /// Codes seen again within their track, not reported.
        public var duplicates = 0
        /// Codes seen for the first time that a later frame must confirm (`TrackingConfig.confirm`).
        public var unconfirmed = 0
        /// The decoder failed on it.
        public var error: DecoderError?
        /// The look that decoded it, and the scene's motion then (`SceneMotion`): what a replay traces.
        public var pass: DecoderPass?
        public var sceneVelocity: Tracker.Velocity?
    }

    /// Takes the frame captured at `now` (the frame's own timestamp when it has one), decoded only
    /// while `scanning`; returns its new reads.
    public mutating func process(_ frame: Frame, at now: Instant, scanning: Bool) -> Outcome {
        defer { wasScanning = scanning }
        guard scanning, let decoder else {
            latest = nil
            return Outcome()
        }
        if !wasScanning || sessionEnded {
            // Scanning (re)starts on a trigger or a resume: its first frame is always decoded, and a
            // trigger session reads what is in view even if the last session read it too.
            sessionEnded = false
            restart()
            if config.sessions {
                tracker = Tracker(config: config.tracking)
                schedule.startSession()
            }
        }
        let time = (frame.timestamp > 0 ? Instant(nanoseconds: frame.timestamp) : now).seconds
        latest = time
        let decision = gate.decide(frame, viewport: config.viewport.pixels(in: frame.size), at: time, owed: schedule.owesLook)
        // A frame the gate skips did not change: it has no centre, and ends the motion.
        motion.follow(gate.changeCentre, at: time)
        guard case .decode(let secondLooks, let changed) = decision else {
            tracker.touch(at: time)
            return Outcome(gated: true)
        }
        let look = schedule.look(secondLooks: secondLooks, changed: changed)
        let symbols: [Symbol]
        do {
            // A short code with bars in its quiet zone is part of a longer one (`QuietZone`).
            symbols =
                look.skipped
                ? []
                : try decoder.symbols(
                    in: frame, viewport: config.viewport, secondLooks: secondLooks, pass: look.pass, narrowed: look.narrowed, travel: motion.travel
                )
                .filter { !QuietZone.hasBars($0, in: frame) }
        } catch {
            return Outcome(error: error)
        }
        schedule.found(symbols, by: look)
        let tracked = tracker.update(
            with: symbols, at: time, look: look.index, changed: changed, everyLook: look.pass == .moving, sceneVelocity: motion.velocity)
        // A code still to be decided (a first sighting to confirm, a misread while the code in its
        // place is in view) owes a look at the next frame, still or not: a code put down is read
        // then, not at the gate's timer.
        if tracked.unconfirmed > 0 || tracked.misreads > 0 { schedule.confirm(look) }
        let found = tracked.new.map { read($0, in: frame) }
        // The pack window runs on the loop's clock, as `due` does.
        return Outcome(
            symbols: symbols, reads: pack.add(found, at: now.seconds), duplicates: tracked.suppressed, unconfirmed: tracked.unconfirmed,
            pass: look.pass, sceneVelocity: motion.velocity)
    }

    /// The read a symbol makes, a kiosk document parsed with the config's privacy, so that its raw
    /// data goes nowhere (the socket, outputs, snapshots, recordings) unless `raw` allows it.
    public func read(_ symbol: Symbol, in frame: Frame) -> Read {
        var read = Read(symbol: symbol, frame: frame.size)
        read.readDocument(config.documents, today: .today())
        return read
    }

    /// Every code in `frame`'s viewport, every pass (a snapshot shows what is in view). Not the
    /// still image's closer looks: a snapshot is decoded on the capture thread, which they would
    /// hold up (about 0.2 s on an empty 640×480 frame here, seconds in a debug build).
    public func stillSymbols(in frame: Frame) -> [Symbol]? {
        try? decoder?.symbols(in: frame, viewport: config.viewport, pass: .whole)
    }

    /// The codes in view at the last frame: those its decode found and those the tracker keeps in
    /// view across it (a frame the gate skipped, a look that reads only some of the codes). What a
    /// console outlines; none while not scanning.
    public func inView() -> [Symbol] {
        guard let latest else { return [] }
        return tracker.inView(at: latest)
    }

    /// How many frames one full look at a scene takes.
    public var looks: Int { schedule.looks }

    /// Whether the decoder's passes take frames in turn, so that one frame's decode shows only some of the codes in view.
    public var sharesFrames: Bool { schedule.looks > 1 }

    /// The scanning session ended with a read (trigger mode): the next scanning frame starts a new one.
    public mutating func endSession() {
        sessionEnded = true
    }

    /// A new camera stream: its first scanning frame starts a session and is decoded.
    public mutating func newStream() {
        wasScanning = false
        restart()
    }

    /// The next frame is decoded, and is a new scene's first look.
    private mutating func restart() {
        gate.reset()
        motion = SceneMotion()
        schedule.reset()
    }

    /// Reads whose pack window closed by `now`.
    public mutating func due(at now: Instant) -> [Read] {
        pack.isWaiting ? pack.due(at: now.seconds) : []
    }

    /// Every read still waiting for its pack (the camera went away, or the pipeline is replaced).
    public mutating func flush() -> [Read] {
        pack.flush()
    }

    /// Follows a new config without losing the tracks; returns the reads that were waiting for
    /// their pack under the old config.
    public mutating func follow(_ new: PipelineConfig) -> [Read] {
        guard new != config else { return [] }
        var waiting: [Read] = []
        if new.pack != config.pack {
            waiting = pack.flush()
            pack = PackMerger(config: new.pack)
        }
        if new.decoder != config.decoder {
            (decoder, decoderError) = Self.makeDecoder(new.decoder)
            schedule = LookSchedule(passes: decoder?.passes ?? [])
        }
        config = new
        tracker.config = new.tracking
        gate.config = new.gating.following(new.tracking)
        restart()
        return waiting
    }

    private static func makeDecoder(_ config: DecoderConfig) -> ((any Decoder)?, DecoderError?) {
        do {
            return (try Decoders.make(config), nil)
        } catch {
            return (nil, error)
        }
    }
}
