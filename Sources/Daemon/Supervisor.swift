import Codes
import ConfigFile
import ConfigReading
import Feedback
import FoundationEssentials
import Imaging
import Logging
import NIOCore
import NIOPosix
import Outputs
import Platform
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Composes the daemon: the socket, the capture loop and config reload, as services in one
/// ServiceGroup. SIGTERM and SIGINT shut it down gracefully; SIGHUP reloads the config file.
public enum Supervisor {
    /// How long the services have to stop in order after SIGTERM; then what is left is cancelled,
    /// and every service returns at once (a thread hung in a device call is left behind). So the
    /// daemon is gone within 2 s whatever an output, a rule or a client is doing (issue #32), while
    /// stopping in order takes a fraction of this when nothing hangs.
    static let gracefulShutdownTime = Duration.seconds(1)

    /// Runs the daemon until SIGTERM or SIGINT. `configPath` is re-read on SIGHUP; `adjust` is
    /// applied to every config read (command-line overrides).
    public static func run(config: ScannerConfig, configPath: String?, adjust: @escaping @Sendable (inout ScannerConfig) -> Void, logger: Logger) async throws {
        // A client that hangs up mid-write must never kill the daemon.
        Signals.ignoreBrokenPipe()
        let gpio = config.gpio.isEmpty ? nil : GPIOFeedback(config: config.gpio, logger: logger)
        let feedback: any Feedback = gpio ?? NoFeedback()
        let counters = Counters()
        let notifier = SystemdNotifier()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let relay = InletRelay()
        let state = ScannerState(
            config: config.scanner, device: config.camera.device, feedback: feedback, counters: counters,
            logger: logger, publish: { relay.publish($0) })
        // A HID POS host's Trigger Report pauses and resumes, as the socket's commands do.
        let hostRequests = Mutex<CommandExecutor?>(nil)
        let outputs: [any Output] = config.outputs.map { output in
            switch output.kind {
            case .serial(let serial): SerialOutput(output, serial: serial, logger: logger)
            case .keyboard(let keyboard): KeyboardOutput(output, keyboard: keyboard, logger: logger)
            case .hidPOS(let pos):
                HIDPOSOutput(output, pos: pos, logger: logger) { request in
                    _ = hostRequests.withLock { $0 }?.execute(request == .preventRead ? .pause : .resume)
                }
            }
        }
        let executor = CommandExecutor(state: state, feedback: feedback, outputs: outputs, triggerSeconds: config.scanner.triggerTimeoutSeconds)
        hostRequests.withLock { $0 = executor }
        let tap = FrameTap()
        // Delivery lives on the socket's event loop: made there, and reached there only.
        let eventLoop = group.next()
        let delivery = try await eventLoop.submit {
            NIOLoopBound(
                Delivery(
                    config: config.socket, eventLoop: eventLoop, counters: counters, feedback: feedback, beepAfter: config.gpio.beepAfter,
                    outputs: outputs, target: executor, tap: tap, logger: logger),
                eventLoop: eventLoop)
        }.get()
        let server = SocketServer(config: config.socket, delivery: delivery, logger: logger)
        let inlet = ReadInlet(delivery: delivery, config: config.socket)
        relay.inlet.withLock { $0 = inlet }
        let loop = CaptureLoop(config: config, state: state, counters: counters, feedback: feedback, sink: relay, tap: tap, notifier: notifier, logger: logger)

        gpio?.watchTrigger { [executor, logger] in
            if case .failure(let error) = executor.execute(.trigger) { logger.notice("trigger button: \(error.message)") }
        }
        let metricsFile = MetricsFileService(config: config.metrics, counters: counters, target: executor, logger: logger)
        // Services stop in reverse order: GPIO, first here, releases its lines after capture has
        // stopped, and the outputs close their devices after the socket has.
        let services: [any Service] =
            (gpio.map { [$0] } ?? []) + (outputs.isEmpty ? [] : [OutputsService(outputs: outputs)]) + [
                SocketService(server: server, notifier: notifier, logger: logger),
                CaptureService(loop: loop, state: state, logger: logger),
                metricsFile,
                ReloadService(
                    path: configPath, running: config, adjust: adjust, loop: loop, state: state, executor: executor, metricsFile: metricsFile,
                    notifier: notifier, logger: logger),
            ]
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracefulShutdownTime
        var failure: (any Error)?
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            failure = error
        }
        // A thread left behind in a device call (capture, or an output's, which answers nothing
        // once its run() returned) could still hand over a read or a state: it stops here, before
        // the event loop it would be scheduled on is gone.
        relay.close()
        try? await group.shutdownGracefully()
        if let failure { throw failure }
    }
}

/// Carries reads and state changes to the socket's inlet while its event loop runs: from when the
/// socket is made (after the state it reports) until `close()`, before the loop shuts down.
final class InletRelay: ReadSink, Sendable {
    let inlet = Mutex<ReadInlet?>(nil)
    func publish(_ snapshot: ScannerSnapshot) { inlet.withLock { $0?.publish(snapshot) } }
    func deliver(_ read: Read) { inlet.withLock { $0?.deliver(read) } }
    /// Nothing more is carried; one on its way is handed over first.
    func close() { inlet.withLock { $0 = nil } }
}

/// The outputs as one service: graceful shutdown reaches them all at once, so that one whose
/// thread hangs in a device call keeps none of the others from closing its device. Like any
/// service it runs until shutdown: it needs at least one output.
struct OutputsService: Service {
    let outputs: [any Output]

    func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for output in outputs { group.addTask { try await output.run() } }
        }
    }
}

/// The socket as a service: bound first, READY=1 once it is, removed last.
struct SocketService: Service {
    let server: SocketServer
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        try await server.start()
        notifier.ready(status: "listening")
        try? await gracefulShutdown()
        notifier.stopping()
        await server.stop()
    }
}

/// The capture loop on a thread of its own, stopped by graceful shutdown; the torch ends off.
struct CaptureService: Service {
    let loop: CaptureLoop
    let state: ScannerState
    let logger: Logger

    func run() async throws {
        // Graceful shutdown (SIGTERM) waits for the loop, which ends within a frame's wait;
        // cancellation (the shutdown deadline, or another service failed) does not.
        if !(await OwnThread.run(name: "capture", stop: loop.stop, loop.run)) {
            logger.warning("capture: its thread was still busy (in a camera call) when the daemon stopped; left behind")
        }
        state.change { $0.camera = CameraStatus(state: .unavailable, device: $0.camera.device, detail: "daemon stopped") }
    }
}

/// SIGHUP: re-read the config; a bad file is logged and the running config kept.
struct ReloadService: Service {
    let path: String?
    let running: ScannerConfig
    let adjust: @Sendable (inout ScannerConfig) -> Void
    let loop: CaptureLoop
    let state: ScannerState
    let executor: CommandExecutor
    let metricsFile: MetricsFileService
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        var current = running
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            guard let path else {
                logger.info("SIGHUP: no config file to reload")
                continue
            }
            notifier.reloading()
            defer { notifier.ready(status: "config reloaded") }
            var next: ScannerConfig
            switch await Self.load(path) {
            case nil:
                logger.info("SIGHUP: shutting down before the config was read")
                return
            case .failure(let error):
                logger.error("config reload failed, keeping the running config: \(error)")
                continue
            case .success(let config):
                next = config
            }
            adjust(&next)
            if next.socket != current.socket {
                logger.warning("socket settings changed in \(path): they take effect at the next restart")
            }
            if next.outputs != current.outputs {
                logger.warning("outputs changed in \(path): they take effect at the next restart")
            }
            if next.gpio != current.gpio {
                logger.warning("gpio or feedback settings changed in \(path): they take effect at the next restart")
            }
            loop.reconfigure(next)
            metricsFile.reconfigure(next.metrics)
            executor.triggerSeconds.withLock { $0 = next.scanner.triggerTimeoutSeconds }
            state.change {
                $0.mode = next.scanner.mode
                $0.torchMode = next.scanner.torch
            }
            logger.info("config reloaded from \(path)")
            current = next
        }
    }

    /// Reads the config on a thread of its own; nil when graceful shutdown came first, so that
    /// no file, however slow to read, holds up SIGTERM.
    static func load(_ path: String) async -> Result<ScannerConfig, ConfigError>? {
        typealias Waiter = CheckedContinuation<Result<ScannerConfig, ConfigError>?, Never>
        let waiter = Mutex<(continuation: Waiter?, over: Bool)>((nil, false))
        let finish: @Sendable (Result<ScannerConfig, ConfigError>?) -> Void = { result in
            let continuation = waiter.withLock { state -> Waiter? in
                defer { state = (nil, true) }
                return state.over ? nil : state.continuation
            }
            continuation?.resume(returning: result)
        }
        return await withGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let shutDown = waiter.withLock { state -> Bool in
                    state.continuation = continuation
                    return state.over
                }
                if shutDown { return continuation.resume(returning: nil) }
                OwnThread.start(name: "config") {
                    finish(Result { () throws(ConfigError) in try ConfigFile.load(path: path) })
                }
            }
        } onGracefulShutdown: {
            finish(nil)
        }
    }
}
