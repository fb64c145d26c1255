import Capture
import Codes
import ConfigFile
import Daemon
import Feedback
import Foundation
import ImageFiles
import Imaging
import Logging
import Platform
import ScannerProtocol
import ScannerTestSupport
import Synchronization
import Testing

@testable import Daemon

/// The capture loop in this process, with a scripted camera and clock: the rules of the loop itself
/// (a trigger session ends at its first read, a silent camera counts as interrupted, reconnects are
/// counted), each checked without a daemon, a socket or an emulator.
@Suite(.timeLimit(.minutes(2))) struct CaptureLoopTests {
    /// What the scripted camera does on each call of `nextFrame`.
    enum Step {
        case frame(Frame)
        /// No frame within the timeout, as a silent camera.
        case nothing
        /// The camera is lost.
        case fail(CameraError)
    }

    /// A count shared between threads.
    final class Count: Sendable {
        private let value = Atomic<Int>(0)
        var current: Int { value.load(ordering: .relaxed) }
        /// Adds one; returns the count before.
        @discardableResult func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
    }

    /// A camera that plays its steps, then repeats the last one, about a millisecond a step.
    final class ScriptedSource: FrameSource, @unchecked Sendable {
        let steps: [Step]
        /// Counts every call, across the sources of one test.
        let polls: Count?
        private var index = 0

        init(_ steps: [Step], polls: Count? = nil) {
            self.steps = steps
            self.polls = polls
        }

        var status: CameraStatus { CameraStatus(state: .streaming, device: "scripted", format: "GREY 320x240") }
        var skippedFrames: Int { 0 }

        func nextFrame(timeoutMilliseconds: Int32) throws(CameraError) -> Frame? {
            let step = steps[min(index, steps.count - 1)]
            index += 1
            usleep(1_000)
            polls?.next()
            switch step {
            case .frame(let frame): return frame
            case .nothing: return nil
            case .fail(let error): throw error
            }
        }

        func close() {}
    }

    /// Everything the loop hands out, recorded.
    final class Recorder: ReadSink, Feedback, @unchecked Sendable {
        private let lock = NSLock()
        private var _reads: [Read] = []
        private var _errors = 0

        var reads: [Read] { lock.withLock { _reads } }
        var errors: Int { lock.withLock { _errors } }

        func deliver(_ read: Read) { lock.withLock { _reads.append(read) } }
        func setTorch(_ on: Bool) {}
        func goodRead() {}
        func error() { lock.withLock { _errors += 1 } }
        func held() {}
        func dropped() {}
        func rejected(_ name: String?) {}
        func beep() {}
    }

    /// The loop on a thread of its own, with its parts at hand.
    final class Harness: @unchecked Sendable {
        let recorder = Recorder()
        let counters = Counters()
        let state: ScannerState
        let loop: CaptureLoop
        /// The loop's clock stands still at its start plus this many nanoseconds: only a test moves it.
        let offset = Offset()
        /// Calls of the camera opener.
        let opened = Count()
        private let finished = Count()

        final class Offset: Sendable {
            private let value = Atomic<UInt64>(0)
            var nanoseconds: UInt64 {
                get { value.load(ordering: .relaxed) }
                set { value.store(newValue, ordering: .relaxed) }
            }
        }

        init(config: ScannerConfig, sources: @escaping @Sendable (Int) throws(CameraError) -> any FrameSource) {
            let logger = Logger(label: "capture-loop-test")
            let recorder = recorder
            let counters = counters
            state = ScannerState(config: config.scanner, device: "scripted", feedback: recorder, counters: counters, logger: logger, publish: { _ in })
            let opened = opened
            let offset = offset
            let start = MonotonicClock.nanoseconds()
            let environment = CaptureEnvironment(
                open: { _, _ throws(CameraError) in try sources(opened.next()) },
                now: { Instant(nanoseconds: start + offset.nanoseconds) },
                waitForDevice: { _, _, _, progress in progress() }
            )
            loop = CaptureLoop(
                config: config, state: state, counters: counters, feedback: recorder, sink: recorder, tap: FrameTap(),
                notifier: SystemdNotifier(), logger: logger, environment: environment)
        }

        func start() {
            let loop = loop
            let finished = finished
            Thread {
                loop.run()
                finished.next()
            }.start()
        }

        func wait(seconds: Double = 30, until condition: () -> Bool) -> Bool {
            Fixtures.wait(seconds: seconds, until: condition)
        }

        func stop() {
            loop.stop()
            _ = wait { finished.current > 0 }
        }
    }

    static let size = Size(width: 320, height: 240)

    /// A frame showing the QR codes of `texts` side by side.
    static func frame(_ texts: [String], sequence: UInt64) throws -> Frame {
        var placed: [(Frame, Point)] = []
        for (index, text) in texts.enumerated() {
            placed.append((try ImageFile.read(path: Barcodes.qr(text, moduleSize: 3)), Point(x: 50 + index * 120, y: 70)))
        }
        let scene = Barcodes.compose(size: size, background: 220, placing: placed)
        return Frame(
            width: scene.width, height: scene.height, pixels: (0..<(scene.width * scene.height)).map { scene[$0 % scene.width, $0 / scene.width] },
            sequence: sequence)
    }

    static func config(mode: ReadMode = .presentation, stallSeconds: Double = 5) -> ScannerConfig {
        var config = ScannerConfig()
        config.scanner.mode = mode
        config.scanner.stallSeconds = stallSeconds
        config.pipeline.viewport = .full
        config.pipeline.decoder.engine = .zbar
        config.pipeline.decoder.symbologies = [.qr]
        return config
    }

    /// One press, one code: the session ends at its first read, and the code beside it is counted,
    /// never reported, even while it stays in view.
    @Test func aTriggerSessionEndsAtItsFirstRead() throws {
        let both = try Self.frame(["LEFT", "RIGHT"], sequence: 1)
        let harness = Harness(config: Self.config(mode: .trigger)) { _ throws(CameraError) in
            ScriptedSource([Step.frame(both)])
        }
        harness.start()
        defer { harness.stop() }
        #expect(harness.wait { harness.state.snapshot.camera.state == .streaming })
        #expect(harness.recorder.reads.isEmpty, "no read without a trigger")
        #expect(harness.state.startTrigger(seconds: 30, now: MonotonicClock.nanoseconds()))
        #expect(harness.wait { harness.counters.snapshot.dropped["trigger-session-ended"] == 1 })
        #expect(harness.recorder.reads.count == 1)
        #expect(["LEFT", "RIGHT"].contains(harness.recorder.reads.first?.text ?? ""))
        #expect(!harness.state.snapshot.triggered)
        // A second press reads again what is still in view.
        #expect(harness.state.startTrigger(seconds: 30, now: MonotonicClock.nanoseconds()))
        #expect(harness.wait { harness.recorder.reads.count == 2 })
        #expect(harness.wait { harness.counters.snapshot.dropped["trigger-session-ended"] == 2 })
    }

    /// A camera that stays silent longer than `scanner.stall_seconds` is reported interrupted,
    /// closed and opened again; one that answers late but within the limit is not.
    @Test func aSilentCameraIsInterruptedAfterTheStallTime() throws {
        let frame = try Self.frame([], sequence: 1)
        let polls = Count()
        let harness = Harness(config: Self.config(stallSeconds: 5)) { _ throws(CameraError) in
            ScriptedSource([Step.frame(frame), .nothing], polls: polls)
        }
        harness.start()
        defer { harness.stop() }
        #expect(harness.wait { harness.state.snapshot.camera.state == .streaming })
        // The state says streaming as soon as the camera opens; a second poll means the loop has
        // taken the frame, at time 0, and not after the clock below moved.
        #expect(harness.wait { polls.current >= 2 })
        // 4 s of silence on the loop's clock: still streaming, poll after poll.
        harness.offset.nanoseconds = 4_000_000_000
        let before = polls.current
        #expect(harness.wait { polls.current >= before + 20 })
        #expect(harness.state.snapshot.camera.state == .streaming && harness.opened.current == 1)
        harness.offset.nanoseconds = 6_000_000_000
        #expect(harness.wait(seconds: 10) { harness.opened.current >= 2 }, "the loop opens the camera again")
        #expect(harness.recorder.errors >= 1, "the loss gives the error feedback")
        #expect(harness.counters.snapshot.reconnects >= 1)
    }

    /// Each time the camera comes back after streaming counts as a reconnect; failed opens and the
    /// first stream do not.
    @Test func reconnectsCountCamerasThatCameBack() throws {
        let frame = try Self.frame(["AGAIN"], sequence: 1)
        let lost = CameraError(state: .interrupted, device: "scripted", detail: "unplugged")
        let harness = Harness(config: Self.config()) { attempt throws(CameraError) in
            switch attempt {
            case 0: return ScriptedSource([Step.frame(frame), .fail(lost)])
            case 1, 2: throw CameraError(state: .busy, device: "scripted", detail: "in use")
            case 3: return ScriptedSource([Step.frame(frame), .fail(lost)])
            default: return ScriptedSource([Step.frame(frame)])
            }
        }
        harness.start()
        defer { harness.stop() }
        #expect(harness.wait { harness.opened.current >= 5 && harness.state.snapshot.camera.state == .streaming })
        #expect(harness.counters.snapshot.reconnects == 2)
        #expect(harness.recorder.reads.first?.text == "AGAIN")
    }

    /// A 640x480 frame of an EAN-13 and, with `link`, a Digital Link QR code of the same GTIN.
    static func packFrame(link: Bool, sequence: UInt64) throws -> Frame {
        var images = [try ImageFile.read(path: Barcodes.zint(.ean13, "9506000134352"))]
        if link { images.append(try ImageFile.read(path: Barcodes.qr("https://id.gs1.org/01/09506000134352/10/LOT1", moduleSize: 3))) }
        let scene = Barcodes.sideBySide(images, in: Size(width: 640, height: 480))
        return Frame(
            width: scene.width, height: scene.height, pixels: (0..<(scene.width * scene.height)).map { scene[$0 % scene.width, $0 / scene.width] },
            sequence: sequence)
    }

    static func packConfig(window: Double) -> ScannerConfig {
        var config = Self.config()
        config.pipeline.decoder.symbologies = [.qr, .ean13]
        config.pipeline.pack.windowSeconds = window
        return config
    }

    /// With a pack window, the EAN-13 seen first waits for its pack's Digital Link, seen frames
    /// later, and the two are one read once the window closes on the loop's clock.
    @Test func aPackWindowJoinsCodesSeenInLaterFrames() throws {
        let ean = try Self.packFrame(link: false, sequence: 1)
        let both = try Self.packFrame(link: true, sequence: 2)
        let harness = Harness(config: Self.packConfig(window: 0.5)) { _ throws(CameraError) in
            ScriptedSource([Step.frame(ean), .frame(ean), .frame(both)])
        }
        harness.start()
        defer { harness.stop() }
        #expect(harness.wait { harness.counters.snapshot.detections >= 3 }, "the frame with both codes decoded (the EAN-13 frames give at most 2)")
        #expect(harness.recorder.reads.isEmpty, "the window is still open: the clock stands still")
        harness.offset.nanoseconds = 600_000_000
        #expect(harness.wait { !harness.recorder.reads.isEmpty })
        let read = try #require(harness.recorder.reads.first)
        #expect(read.symbologyID == .qr && read.merged?.map(\.symbologyID) == [.ean13])
        #expect(harness.recorder.reads.count == 1 && harness.counters.snapshot.merged == 1)
    }

    /// A read waiting for its pack is handed over when the camera is lost, not dropped.
    @Test func aWaitingReadIsDeliveredWhenTheCameraIsLost() throws {
        let ean = try Self.packFrame(link: false, sequence: 1)
        let blank = try Self.frame([], sequence: 2)
        let lost = CameraError(state: .interrupted, device: "scripted", detail: "unplugged")
        let harness = Harness(config: Self.packConfig(window: 60)) { attempt throws(CameraError) in
            attempt == 0 ? ScriptedSource([Step.frame(ean), .frame(ean), .fail(lost)]) : ScriptedSource([Step.frame(blank)])
        }
        harness.start()
        defer { harness.stop() }
        #expect(harness.wait { harness.opened.current >= 2 })
        #expect(harness.wait { harness.recorder.reads.count == 1 })
        #expect(harness.recorder.reads.first?.text == "9506000134352" && harness.recorder.reads.first?.merged == nil)
    }
}
