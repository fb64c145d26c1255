import ConfigFile
import Feedback
import FoundationEssentials
import Logging
import NIOCore
import NIOPosix
import Outputs
import ScannerCore
import ServiceLifecycle
import Synchronization
import UnixSignals

#if canImport(Glibc)
    import Glibc
#endif

/// Composes the daemon: the socket, the capture loop and config reload, as services in one
/// ServiceGroup. SIGTERM and SIGINT shut it down gracefully; SIGHUP reloads the config file.
public enum Supervisor {
    /// Runs the daemon until SIGTERM or SIGINT. `configPath` is re-read on SIGHUP; `adjust` is
    /// applied to every config read (command-line overrides).
    public static func run(config: ScannerConfig, configPath: String?, adjust: @escaping @Sendable (inout ScannerConfig) -> Void, logger: Logger) async throws {
        // A client that hangs up mid-write must never kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        let gpio = config.gpio.isEmpty ? nil : GPIOFeedback(config: config.gpio, logger: logger)
        let feedback: any Feedback = gpio ?? NoFeedback()
        let counters = Counters()
        let notifier = SystemdNotifier()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let relay = StateRelay()
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
        let loop = CaptureLoop(config: config, state: state, counters: counters, feedback: feedback, sink: inlet, tap: tap, notifier: notifier, logger: logger)

        gpio?.watchTrigger { [executor, logger] in
            if case .failure(let error) = executor.execute(.trigger) { logger.notice("trigger button: \(error.message)") }
        }
        let metricsFile = MetricsFileService(config: config.metrics, counters: counters, target: executor, logger: logger)
        // Services stop in reverse order: GPIO, first here, releases its lines after capture has
        // stopped, and the outputs close their devices after the socket has.
        let services: [any Service] =
            (gpio.map { [$0] } ?? []) + outputs + [
                SocketService(server: server, notifier: notifier, logger: logger),
                CaptureService(loop: loop, state: state),
                metricsFile,
                ReloadService(
                    path: configPath, running: config, adjust: adjust, loop: loop, state: state, executor: executor, metricsFile: metricsFile,
                    notifier: notifier, logger: logger),
            ]
        let serviceGroup = ServiceGroup(
            configuration: .init(services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await serviceGroup.run()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try? await group.shutdownGracefully()
    }
}

/// Carries state changes to the socket, which is made after the state it reports.
final class StateRelay: Sendable {
    let inlet = Mutex<ReadInlet?>(nil)
    func publish(_ snapshot: ScannerSnapshot) { inlet.withLock { $0 }?.publish(snapshot) }
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

    func run() async throws {
        // Graceful shutdown (SIGTERM) or cancellation (another service failed) both end the loop.
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    OwnThread.start(name: "capture") {
                        loop.run()
                        done.resume()
                    }
                }
            } onGracefulShutdown: {
                loop.stop()
            }
        } onCancel: {
            loop.stop()
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
