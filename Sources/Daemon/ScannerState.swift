import ConfigFile
import Feedback
import Imaging
import Logging
import ScannerProtocol
import Synchronization

/// What the scanner is doing, as `state` events and `status` report it.
public struct ScannerSnapshot: Sendable, Equatable, Codable {
    public var camera: CameraStatus
    public var torch: Bool
    public var torchMode: TorchMode
    public var mode: ReadMode
    public var paused: Bool
    /// In trigger mode: a trigger session is running.
    public var triggered: Bool

    /// Whether frames are decoded now.
    public var scanning: Bool {
        camera.state == .streaming && !paused && (mode == .presentation || triggered)
    }

    /// What the torch should be: never on without a streaming camera.
    var wantedTorch: Bool {
        switch torchMode {
        case .off: false
        case .on: camera.state == .streaming
        case .auto: scanning
        }
    }
}

/// The scanner's shared state. Every change goes through here, so the torch follows the rules in
/// one place and each change is logged and published once.
public final class ScannerState: Sendable {
    private let state: Mutex<(snapshot: ScannerSnapshot, triggerDeadline: UInt64?)>
    private let feedback: any Feedback
    private let counters: Counters
    private let logger: Logger
    private let publish: @Sendable (ScannerSnapshot) -> Void

    public init(
        config: ScanningConfig, device: String, feedback: any Feedback, counters: Counters, logger: Logger,
        publish: @escaping @Sendable (ScannerSnapshot) -> Void
    ) {
        let snapshot = ScannerSnapshot(
            camera: CameraStatus(state: .starting, device: device), torch: false, torchMode: config.torch, mode: config.mode,
            paused: false, triggered: false)
        state = Mutex((snapshot, nil))
        self.feedback = feedback
        self.counters = counters
        self.logger = logger
        self.publish = publish
        // Whatever a previous run left on, the torch starts off.
        feedback.setTorch(false)
    }

    public var snapshot: ScannerSnapshot { state.withLock { $0.snapshot } }

    /// Applies a change; the torch is switched, and the change logged and published, only if something changed.
    public func change(_ body: (inout ScannerSnapshot) -> Void) {
        let (before, after) = state.withLock { locked -> (ScannerSnapshot, ScannerSnapshot) in
            let before = locked.snapshot
            body(&locked.snapshot)
            if !locked.snapshot.triggered { locked.triggerDeadline = nil }
            let wanted = locked.snapshot.wantedTorch
            if wanted != locked.snapshot.torch {
                locked.snapshot.torch = wanted
                feedback.setTorch(wanted)
                if wanted { counters.update { $0.torchSwitchOns += 1 } }
            }
            return (before, locked.snapshot)
        }
        guard before != after else { return }
        if before.camera != after.camera {
            let message: Logger.Message = "camera \(after.camera.state.rawValue): \(after.camera.device)"
            var metadata: Logger.Metadata = [:]
            if let detail = after.camera.detail { metadata["detail"] = "\(detail)" }
            if let format = after.camera.format, after.camera.state == .streaming { metadata["format"] = "\(format)" }
            switch after.camera.state {
            case .streaming, .available, .starting: logger.info(message, metadata: metadata)
            default: logger.warning(message, metadata: metadata)
            }
        }
        if before.torch != after.torch { logger.info("torch \(after.torch ? "on" : "off")") }
        if before.paused != after.paused || before.mode != after.mode || before.torchMode != after.torchMode {
            logger.info("scanning \(after.paused ? "paused" : "active"), mode \(after.mode.rawValue), torch mode \(after.torchMode.rawValue)")
        }
        publish(after)
    }

    /// Starts a trigger session lasting `seconds` (trigger mode only); false in presentation mode.
    public func startTrigger(seconds: Double, now: UInt64) -> Bool {
        guard snapshot.mode == .trigger else { return false }
        state.withLock { $0.triggerDeadline = now + UInt64(seconds * 1e9) }
        change { $0.triggered = true }
        return true
    }

    /// Ends a trigger session whose time is up, as of `now`.
    public func expireTrigger(now: UInt64) {
        let expired = state.withLock { locked in locked.triggerDeadline.map { now >= $0 } ?? false }
        if expired { change { $0.triggered = false } }
    }
}
