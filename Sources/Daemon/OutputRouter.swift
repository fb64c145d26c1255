import Feedback
import Logging
import Outputs
import ScannerCore
import ServiceLifecycle
import Synchronization

/// Sends every read to the socket and to each configured output, and gives the good-read beep
/// once one of them accepted it (or at once, with `feedback.beep_after: decoded`). A read that
/// no output takes gives the error pattern and a log line.
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

    func deliver(_ read: Read) -> Bool {
        if !beepAfterAcceptance { feedback.goodRead() }
        let outcome = Mutex<(waiting: Int, accepted: Bool)>((outputs.count + 1, false))
        let done: @Sendable (Bool) -> Void = { [feedback, beepAfterAcceptance, logger] accepted in
            let (first, last, any) = outcome.withLock { state -> (Bool, Bool, Bool) in
                let first = accepted && !state.accepted
                state.accepted = state.accepted || accepted
                state.waiting -= 1
                return (first, state.waiting == 0, state.accepted)
            }
            if first && beepAfterAcceptance { feedback.goodRead() }
            if last && !any {
                feedback.error()
                logger.warning("read \(read.seq) reached no output", metadata: ["symbology": "\(read.symbology)"])
            }
        }
        done(socket.deliver(read))
        for output in outputs { output.send(read, done: done) }
        return true
    }

    /// The health of the socket and every output, for `status`.
    var health: [OutputHealth] { outputs.map(\.health) }
}

/// Stops the outputs at shutdown, after capture has stopped; reads still queued are given up and counted.
struct OutputsService: Service {
    let outputs: [any Output]

    func run() async throws {
        try? await gracefulShutdown()
        for output in outputs { output.stop() }
    }
}
