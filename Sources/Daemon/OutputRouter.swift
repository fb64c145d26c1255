import Feedback
import Logging
import Outputs
import ScannerCore
import ServiceLifecycle
import Synchronization

/// Sends every read to the socket and to each configured output, and sounds what became of it
/// (README, "The socket"): the good-read pattern once the socket delivered it or an output accepted
/// it (or at once, with `feedback.beep_after: decoded`); the held pattern when nothing took it but
/// the socket holds it; the dropped pattern when it will never reach the POS.
final class OutputRouter: ReadSink {
    private let socket: SocketServer
    let outputs: [any Output]
    private let feedback: any Feedback
    private let beepAfterAcceptance: Bool
    private let logger: Logger

    init(socket: SocketServer, outputs: [any Output], feedback: any Feedback, beepAfterAcceptance: Bool, logger: Logger) {
        self.socket = socket
        self.outputs = outputs
        self.feedback = feedback
        self.beepAfterAcceptance = beepAfterAcceptance
        self.logger = logger
    }

    /// One read's answers: from the socket and from each output.
    private struct Tally {
        var waiting: Int
        var accepted = false
        var held = false
    }

    func deliver(_ read: Read) {
        if !beepAfterAcceptance { feedback.goodRead() }
        let tally = Mutex(Tally(waiting: outputs.count + 1))
        let answer: @Sendable (_ accepted: Bool, _ held: Bool) -> Void = { [feedback, beepAfterAcceptance, logger] accepted, held in
            let (first, last, state) = tally.withLock { state -> (Bool, Bool, Tally) in
                let first = accepted && !state.accepted
                state.accepted = state.accepted || accepted
                state.held = state.held || held
                state.waiting -= 1
                return (first, state.waiting == 0, state)
            }
            if first && beepAfterAcceptance { feedback.goodRead() }
            guard last, !state.accepted else { return }
            if state.held {
                feedback.held()
            } else {
                feedback.dropped()
                logger.warning("read \(read.seq) reached no output", metadata: ["symbology": "\(read.symbology)"])
            }
        }
        // The socket answers once; a held read answers again when it is delivered or dropped.
        let answered = Atomic<Bool>(false)
        socket.deliver(read) { [feedback, logger] outcome in
            guard answered.exchange(true, ordering: .acquiringAndReleasing) else {
                switch outcome {
                case .delivered, .filtered: answer(true, false)
                case .held: answer(false, true)
                case .dropped: answer(false, false)
                }
                return
            }
            // Later news of a held read. Dropped: the POS will never get it, unless an output took it.
            if case .dropped(let reason) = outcome, !tally.withLock({ $0.accepted }) {
                feedback.dropped()
                logger.warning("held read \(read.seq) dropped: \(reason)", metadata: ["symbology": "\(read.symbology)"])
            }
        }
        for output in outputs { output.send(read) { accepted in answer(accepted, false) } }
    }
}

/// Stops the outputs at shutdown, after capture has stopped; reads still queued are given up and counted.
struct OutputsService: Service {
    let outputs: [any Output]

    func run() async throws {
        try? await gracefulShutdown()
        for output in outputs { output.stop() }
    }
}
