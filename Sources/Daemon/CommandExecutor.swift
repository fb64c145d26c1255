import Feedback
import Outputs
import Platform
import ScannerProtocol
import Synchronization

/// What socket commands do to the scanner: pause, resume, trigger, torch and beep (the socket
/// server answers the others itself).
final class CommandExecutor: CommandTarget {
    private let state: ScannerState
    private let feedback: any Feedback
    private let outputs: [any Output]
    let triggerSeconds: Mutex<Double>

    init(state: ScannerState, feedback: any Feedback, outputs: [any Output], triggerSeconds: Double) {
        self.state = state
        self.feedback = feedback
        self.outputs = outputs
        self.triggerSeconds = Mutex(triggerSeconds)
    }

    var snapshot: ScannerSnapshot { state.snapshot }
    var outputHealth: [OutputStatus] { outputs.map(OutputStatus.init) }

    func execute(_ command: Command) -> Result<Void, CommandError> {
        switch command {
        case .status, .subscribe, .unsubscribe, .metrics, .snapshot, .record, .ack, .nak, .watch, .unwatch, .restrict:
            // Answered by delivery itself.
            return .success(())
        case .pause:
            state.change { $0.paused = true }
        case .resume:
            state.change { $0.paused = false }
        case .trigger:
            let seconds = triggerSeconds.withLock { $0 }
            guard state.startTrigger(seconds: seconds, now: MonotonicClock.nanoseconds()) else {
                return .failure(CommandError("trigger needs scanner.mode: trigger (the scanner reads continuously in presentation mode)"))
            }
        case .torch(let mode):
            state.change { $0.torchMode = mode }
        case .beep:
            feedback.beep()
        }
        return .success(())
    }
}

extension OutputStatus {
    /// `output`'s health as `status` and the metrics show it.
    init(_ output: any Output) {
        let health = output.health
        switch health.state {
        case .ok: self.init(name: output.name, state: "ok")
        case .waiting(let detail): self.init(name: output.name, state: "waiting", detail: detail)
        case .error(let detail): self.init(name: output.name, state: "error", detail: detail)
        }
        sent = health.sent
        failed = health.failed
        filtered = health.filtered
        queued = health.queued
    }
}
