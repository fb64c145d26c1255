import CMalloc
import Capture
import Codes
import ConfigFile
import Decoding
import Feedback
import FoundationEssentials
import Glibc
import Imaging
import Logging
import Platform
import ReadPipeline
import Synchronization

/// Where reads go once the capture loop has made them.
public protocol ReadSink: Sendable {
    /// Hands a read over for delivery; it ends delivered or dropped and counted, never unaccounted.
    func deliver(_ read: Read)
}

/// What the capture loop takes from the system: its camera, its clock, and its wait for a camera
/// that is missing, busy or forbidden. `system` is the daemon's; tests script them.
struct CaptureEnvironment: Sendable {
    /// Opens the camera a config names.
    var open: @Sendable (CameraConfig, Logger) throws(CameraError) -> any FrameSource
    /// CLOCK_MONOTONIC nanoseconds.
    var now: @Sendable () -> UInt64
    /// Waits, about a second at most, for the camera to come back; calls `progress` at least every
    /// 250 ms and returns early when `stopping` says so.
    var waitForDevice: @Sendable (_ camera: CameraConfig, _ state: CameraState, _ stopping: () -> Bool, _ progress: () -> Void) -> Void

    static let system = CaptureEnvironment(
        open: { config, logger throws(CameraError) in try SourceOpener.open(config, logger: logger) },
        now: { MonotonicClock.nanoseconds() },
        waitForDevice: { camera, state, stopping, progress in
            let target = SourceOpener.Target(camera.device)
            let missing = state == .unavailable
            // Missing nodes wake us through inotify; busy or forbidden ones are retried every second.
            var waited: Int32 = 0
            while !stopping() && waited < 1000 {
                progress()
                DeviceWatcher.wait(for: target.watchPath, untilExists: missing, timeoutMilliseconds: 250)
                waited += 250
                if missing && FileManager.default.fileExists(atPath: target.watchPath) { return }
            }
        }
    )
}

/// The capture loop on its own thread: open the camera (and wait for it while it is missing,
/// busy or forbidden), take the newest frame, decode the viewport, track, and hand reads over.
public final class CaptureLoop: Sendable {
    private let configuration: Mutex<ScannerConfig>
    private let stopRequested = Atomic<Bool>(false)
    private let state: ScannerState
    private let counters: Counters
    private let feedback: any Feedback
    private let sink: any ReadSink
    private let tap: FrameTap
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let environment: CaptureEnvironment

    init(
        config: ScannerConfig, state: ScannerState, counters: Counters, feedback: any Feedback, sink: any ReadSink, tap: FrameTap,
        notifier: SystemdNotifier, logger: Logger, environment: CaptureEnvironment = .system
    ) {
        configuration = Mutex(config)
        self.state = state
        self.counters = counters
        self.feedback = feedback
        self.sink = sink
        self.tap = tap
        self.notifier = notifier
        self.logger = logger
        self.environment = environment
    }

    /// Takes a new config; the camera is reopened if its settings changed, the rest applies at the next frame.
    public func reconfigure(_ config: ScannerConfig) {
        configuration.withLock { $0 = config }
    }

    /// Asks the loop to end; it does within one poll timeout.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
    }

    private var stopping: Bool { stopRequested.load(ordering: .relaxed) }

    /// Runs until `stop()`. Blocking: call it from a thread of its own.
    public func run() {
        var session = Session(config: configuration.withLock { $0 }, logger: logger)
        var everStreamed = false
        while !stopping {
            let config = configuration.withLock { $0 }
            let source: any FrameSource
            do {
                source = try environment.open(config.camera, logger)
            } catch {
                state.change { $0.camera = CameraStatus(state: error.state, device: error.device, detail: error.detail) }
                notifier.status("camera \(error.state.rawValue)")
                // A deliberate wait for the device: counts as progress for the watchdog.
                environment.waitForDevice(config.camera, error.state, { stopping }, { notifier.watchdog() })
                continue
            }
            if everStreamed { counters.update { $0.reconnects += 1 } }
            everStreamed = true
            state.change { $0.camera = source.status }
            notifier.status("camera streaming: \(source.status.format ?? "")")
            stream(from: source, session: &session)
            source.close()
        }
    }

    /// What the loop keeps from frame to frame: the decoder and tracker for the current config.
    private struct Session {
        var config: ScannerConfig
        var decoder: (any Decoder)?
        var tracker: Tracker
        var gate: ChangeGate
        var pack: PackMerger
        var seq: UInt64 = 0
        /// A read ended the trigger session: the next scanning frame starts a new one, even when the
        /// next trigger came before the loop saw scanning stop.
        var triggerSessionEnded = false

        init(config: ScannerConfig, logger: Logger) {
            self.config = config
            tracker = Tracker(config: config.tracking)
            gate = ChangeGate(config: config.gating.following(config.tracking))
            pack = PackMerger(config: config.pack)
            decoder = Self.makeDecoder(config.decoder, logger: logger)
            gate.looks = decoder?.looks ?? 1
        }

        /// Follows a new config without losing the tracks or the read counter; returns the reads
        /// that were waiting for their pack under the old config.
        mutating func follow(_ new: ScannerConfig, logger: Logger) -> [Read] {
            guard new != config else { return [] }
            var waiting: [Read] = []
            if new.pack != config.pack {
                waiting = pack.flush()
                pack = PackMerger(config: new.pack)
            }
            defer { config = new }
            if new.decoder != config.decoder { decoder = Self.makeDecoder(new.decoder, logger: logger) }
            tracker.config = new.tracking
            gate.config = new.gating.following(new.tracking)
            gate.looks = decoder?.looks ?? 1
            gate.reset()
            return waiting
        }

        static func makeDecoder(_ config: DecoderConfig, logger: Logger) -> (any Decoder)? {
            do {
                return try Decoders.make(config)
            } catch {
                logger.error("decoder not usable: \(error)")
                return nil
            }
        }
    }

    /// How often the capture loop gives malloc's free pages back to the kernel.
    static let trimIntervalNanoseconds: UInt64 = 60_000_000_000

    private func stream(from source: any FrameSource, session: inout Session) {
        var lastFrameTime = environment.now()
        var lastTrim = lastFrameTime
        let cameraConfig = session.config.camera
        var skipped = 0
        var wasScanning = false
        session.gate.reset()
        // Reads waiting for their pack's other codes are not lost with the camera.
        defer { _ = deliver(session.pack.flush(), session: &session) }
        while !stopping {
            let config = configuration.withLock { $0 }
            if config.camera != cameraConfig {
                logger.info("camera settings changed: reopening")
                return
            }
            _ = deliver(session.follow(config, logger: logger), session: &session)
            let now = environment.now()
            if session.pack.isWaiting { _ = deliver(session.pack.due(at: Double(now) / 1e9), session: &session) }
            state.expireTrigger(now: now)
            tap.expire(now: now)
            let frame: Frame?
            do {
                frame = try source.nextFrame(timeoutMilliseconds: 200)
            } catch {
                interrupted(error.detail, device: error.device)
                return
            }
            guard let frame else {
                if Double(now - lastFrameTime) / 1e9 > config.scanner.stallSeconds {
                    interrupted("no frame for \(config.scanner.stallSeconds) s", device: source.status.device)
                    return
                }
                continue
            }
            lastFrameTime = now
            notifier.watchdog()
            if now - lastTrim >= Self.trimIntervalNanoseconds {
                // ZBar and zxing-cpp allocate and free frame-sized blocks on every decode, and glibc
                // keeps the freed pages of the decode thread's arena resident until it is trimmed
                // (the dips of 150 to 300 KiB in daemon-bench's soak). Giving them back once a
                // minute costs well under a millisecond.
                malloc_trim(0)
                lastTrim = now
            }
            if source.skippedFrames != skipped {
                let newly = source.skippedFrames - skipped
                counters.update { $0.framesSkipped += newly }
                skipped = source.skippedFrames
            }
            let scanning = state.snapshot.scanning
            // Scanning (re)starts on a trigger or a resume: its first frame is always decoded, and a
            // trigger session reads what is in view even if the last session read it too.
            if scanning && (!wasScanning || session.triggerSessionEnded) {
                session.triggerSessionEnded = false
                session.gate.reset()
                if config.scanner.mode == .trigger { session.tracker = Tracker(config: config.tracking) }
            }
            wasScanning = scanning
            var decoded: (symbols: [Symbol]?, reads: [Read]) = (nil, [])
            if scanning, let decoder = session.decoder {
                decoded = decode(frame, with: decoder, session: &session)
            }
            if tap.wanted { offer(frame, decoded: decoded, session: session) }
        }
    }

    /// Decodes a changed frame and hands its new reads over; returns the symbols (nil when gated) and the reads.
    private func decode(_ frame: Frame, with decoder: any Decoder, session: inout Session) -> (symbols: [Symbol]?, reads: [Read]) {
        let time = frame.timestamp > 0 ? Double(frame.timestamp) / 1e9 : Double(environment.now()) / 1e9
        guard
            case .decode(let secondLooks, let look, let changed) = session.gate.decide(
                frame, viewport: session.config.viewport.pixels(in: frame.size), at: time)
        else {
            session.tracker.touch(at: time)
            counters.update { $0.framesGated += 1 }
            return (nil, [])
        }
        let symbols: [Symbol]
        // The time a decode took, on the real clock whatever the loop's clock is.
        let started = MonotonicClock.nanoseconds()
        defer { counters.recordDecode(seconds: Double(MonotonicClock.nanoseconds() - started) / 1e9) }
        do {
            symbols = try decoder.symbols(in: frame, viewport: session.config.viewport, secondLooks: secondLooks, look: look, changed: changed)
        } catch {
            logger.error("decoder failed on frame \(frame.sequence): \(error)")
            return (nil, [])
        }
        let outcome = session.tracker.update(with: symbols, at: time, look: look, changed: changed)
        counters.update {
            $0.framesDecoded += 1
            $0.detections += symbols.count
            $0.duplicates += outcome.suppressed
        }
        let found = outcome.new.map { read($0, in: frame, session: session) }
        // The pack window runs on the loop's clock, as the check for due reads does.
        return (symbols, deliver(session.pack.add(found, at: Double(environment.now()) / 1e9), session: &session, frame: frame.sequence))
    }

    /// Numbers reads and hands them to the sink (which gives the good-read or error feedback once
    /// the outputs have answered); returns those handed over. `frame` is the frame just decoded,
    /// nil when the reads come from the pack window.
    private func deliver(_ ready: [Read], session: inout Session, frame: UInt64? = nil) -> [Read] {
        var reads: [Read] = []
        for var read in ready {
            session.seq += 1
            read.seq = session.seq
            logger.debug("read \(read.seq) \(read.symbology) \(frame.map { "from frame \($0)" } ?? "after its pack window")")
            if let merged = read.merged { counters.update { $0.merged += merged.count } }
            sink.deliver(read)
            reads.append(read)
            // A trigger session ends at its first read: one press, one code.
            if state.snapshot.mode == .trigger {
                state.change { $0.triggered = false }
                session.triggerSessionEnded = true
                break
            }
        }
        if reads.count < ready.count {
            // Codes beside the one a trigger session read: found, never reported.
            counters.update { $0.dropped["trigger-session-ended", default: 0] += ready.count - reads.count }
        }
        return reads
    }

    /// Copies the frame for the clients waiting for one (snapshot, record). A snapshot's frame is
    /// decoded even when gating or a pause skipped it, so that it shows what is in view.
    private func offer(_ frame: Frame, decoded: (symbols: [Symbol]?, reads: [Read]), session: Session) {
        var symbols = decoded.symbols
        // With two libraries taking frames in turn (engine both), this frame's look saw only its
        // library's codes: a snapshot gets every look, as a still image.
        if symbols == nil || (session.decoder?.looks ?? 1) > 1, tap.wantsDecodedFrame, let decoder = session.decoder {
            symbols = try? decoder.symbols(in: frame, viewport: session.config.viewport)
        }
        let viewport = session.config.viewport.pixels(in: frame.size)
        tap.offer(now: environment.now()) {
            var luma = [UInt8](repeating: 0, count: frame.width * frame.height)
            luma.withUnsafeMutableBytes { out in
                for row in 0..<frame.height {
                    let target = out.baseAddress! + row * frame.width
                    target.copyMemory(from: frame.storage.base + row * frame.stride, byteCount: frame.width)
                }
            }
            return TappedFrame(
                width: frame.width, height: frame.height, sequence: frame.sequence, timestamp: frame.timestamp, luma: luma,
                viewport: viewport, symbols: (symbols ?? []).map { read($0, in: frame, session: session) }, reads: decoded.reads)
        }
    }

    /// The read a symbol makes, a kiosk document parsed with the config's privacy, so that its raw
    /// data goes nowhere (the socket, outputs, snapshots, recordings) unless `raw` allows it.
    private func read(_ symbol: Symbol, in frame: Frame, session: Session) -> Read {
        var read = Read(symbol: symbol, frame: frame.size)
        read.readDocument(session.config.documents, today: .today())
        return read
    }

    private func interrupted(_ detail: String, device: String) {
        // The torch goes off with the camera (ScannerState switches it as the state changes).
        state.change { $0.camera = CameraStatus(state: .interrupted, device: device, detail: detail) }
        feedback.error()
        notifier.status("camera interrupted")
    }
}
