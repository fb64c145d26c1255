import Capture
import Codes
import ConfigFile
import Feedback
import FoundationEssentials
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
    /// The one clock's now.
    var now: @Sendable () -> Instant
    /// Waits, about a second at most, for the camera to come back; calls `progress` at least every
    /// 250 ms and returns early when `stopping` says so.
    var waitForDevice: @Sendable (_ camera: CameraConfig, _ state: CameraState, _ stopping: () -> Bool, _ progress: () -> Void) -> Void

    static let system = CaptureEnvironment(
        open: { config, logger throws(CameraError) in try SourceOpener.open(config, logger: logger) },
        now: { Instant.now() },
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

    /// What the loop keeps from frame to frame: the read pipeline for the current config, and the read counter.
    private struct Session {
        var config: ScannerConfig
        var pipeline: ReadPipeline
        var seq: UInt64 = 0

        init(config: ScannerConfig, logger: Logger) {
            self.config = config
            pipeline = ReadPipeline(config: Self.pipeline(config))
            if let error = pipeline.decoderError { logger.error("decoder not usable: \(error)") }
        }

        /// Follows a new config without losing the tracks or the read counter; returns the reads
        /// that were waiting for their pack under the old config.
        mutating func follow(_ new: ScannerConfig, logger: Logger) -> [Read] {
            guard new != config else { return [] }
            defer { config = new }
            let waiting = pipeline.follow(Self.pipeline(new))
            if new.pipeline.decoder != config.pipeline.decoder, let error = pipeline.decoderError { logger.error("decoder not usable: \(error)") }
            return waiting
        }

        /// The pipeline's part of `config`: in trigger mode each scanning session reads what is in view.
        static func pipeline(_ config: ScannerConfig) -> PipelineConfig {
            var pipeline = config.pipeline
            pipeline.sessions = config.scanner.mode == .trigger
            return pipeline
        }
    }

    /// How often the capture loop gives malloc's free pages back to the kernel.
    static let trimInterval = Duration.seconds(60)

    private func stream(from source: any FrameSource, session: inout Session) {
        var lastFrameTime = environment.now()
        var lastTrim = lastFrameTime
        let cameraConfig = session.config.camera
        var skipped = 0
        // The codes of the last decoded frame: a frame the gate skips shows the same scene.
        session.pipeline.newStream()
        // Reads waiting for their pack's other codes are not lost with the camera.
        defer { _ = deliver(session.pipeline.flush(), session: &session) }
        while !stopping {
            let config = configuration.withLock { $0 }
            if config.camera != cameraConfig {
                logger.info("camera settings changed: reopening")
                return
            }
            _ = deliver(session.follow(config, logger: logger), session: &session)
            let now = environment.now()
            _ = deliver(session.pipeline.due(at: now), session: &session)
            state.expireTrigger(now: now.nanoseconds)
            tap.expire(now: now.nanoseconds)
            let frame: Frame?
            do {
                frame = try source.nextFrame(timeoutMilliseconds: 200)
            } catch {
                interrupted(error.detail, device: error.device)
                return
            }
            guard let frame else {
                if (now - lastFrameTime).seconds > config.scanner.stallSeconds {
                    interrupted("no frame for \(config.scanner.stallSeconds) s", device: source.status.device)
                    return
                }
                continue
            }
            lastFrameTime = now
            notifier.watchdog()
            if now - lastTrim >= Self.trimInterval {
                // ZBar and zxing-cpp allocate and free frame-sized blocks on every decode, and glibc
                // keeps the freed pages of the decode thread's arena resident until it is trimmed
                // (the dips of 150 to 300 KiB in daemon-bench's soak). Giving them back once a
                // minute costs well under a millisecond.
                Memory.trimHeap()
                lastTrim = now
            }
            if source.skippedFrames != skipped {
                let newly = source.skippedFrames - skipped
                counters.update { $0.framesSkipped += newly }
                skipped = source.skippedFrames
            }
            let scanning = state.snapshot.scanning
            // The time a decode took, on the real clock whatever the loop's clock is.
            let started = Instant.now()
            let outcome = session.pipeline.process(frame, at: now, scanning: scanning)
            let reads = count(outcome, of: frame, decodeStarted: started, session: &session)
            if tap.wanted {
                offer(
                    frame, decoded: outcome.symbols != nil, reads: reads, paused: state.snapshot.paused,
                    session: session)
            }
        }
    }

    /// Counts what the pipeline made of a frame, and hands its reads over; returns them.
    private func count(_ outcome: ReadPipeline.Outcome, of frame: Frame, decodeStarted: Instant, session: inout Session) -> [Read] {
        if outcome.symbols != nil || outcome.error != nil {
            counters.recordDecode(seconds: (Instant.now() - decodeStarted).seconds)
        }
        if let error = outcome.error { logger.error("decoder failed on frame \(frame.sequence): \(error)") }
        if outcome.gated { counters.update { $0.framesGated += 1 } }
        guard let symbols = outcome.symbols else { return [] }
        counters.update {
            $0.framesDecoded += 1
            $0.detections += symbols.count
            $0.duplicates += outcome.duplicates
            $0.unconfirmed += outcome.unconfirmed
        }
        return deliver(outcome.reads, session: &session, frame: frame.sequence)
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
                session.pipeline.endSession()
                break
            }
        }
        if reads.count < ready.count {
            // Codes beside the one a trigger session read: found, never reported.
            counters.update { $0.dropped["trigger-session-ended", default: 0] += ready.count - reads.count }
        }
        return reads
    }

    /// Copies the frame for the clients waiting for one (snapshot, record, watch). A snapshot's frame
    /// is decoded even when gating or a pause skipped it, so that it shows what is in view; the
    /// others get the codes the pipeline holds in view at this frame (found by its look, or kept
    /// across a frame the gate skipped or another look's frame), asked for only when a client
    /// takes the frame, and no frame is decoded for them.
    private func offer(_ frame: Frame, decoded: Bool, reads: [Read], paused: Bool, session: Session) {
        var still: [Symbol]?
        // With two libraries taking frames in turn (engine both), this frame's look saw only its
        // library's codes: a snapshot gets every look, as a still image.
        if !decoded || session.pipeline.sharesFrames, tap.wantsDecodedFrame {
            still = session.pipeline.stillSymbols(in: frame)
        }
        let viewport = session.config.pipeline.viewport.pixels(in: frame.size)
        tap.offer(now: environment.now().nanoseconds, paused: paused) {
            var luma = [UInt8](repeating: 0, count: frame.width * frame.height)
            luma.withUnsafeMutableBytes { out in
                for row in 0..<frame.height {
                    let target = out.baseAddress! + row * frame.width
                    target.copyMemory(from: frame.storage.base + row * frame.stride, byteCount: frame.width)
                }
            }
            return TappedFrame(
                width: frame.width, height: frame.height, sequence: frame.sequence, timestamp: frame.timestamp, luma: luma,
                viewport: viewport, symbols: (still ?? session.pipeline.inView()).map { session.pipeline.read($0, in: frame) }, reads: reads)
        }
    }

    private func interrupted(_ detail: String, device: String) {
        // The torch goes off with the camera (ScannerState switches it as the state changes).
        state.change { $0.camera = CameraStatus(state: .interrupted, device: device, detail: detail) }
        feedback.error()
        notifier.status("camera interrupted")
    }
}
