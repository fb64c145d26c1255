import Logging
import ServiceLifecycle
import Synchronization

/// Feedback on GPIO lines: the torch, a buzzer (GPIO line or PWM) and a flash LED, and the trigger
/// button. A line that cannot be requested is logged with the reason and left out; the scanner
/// runs on without it. As a service it plays the startup pattern, and on shutdown (graceful or
/// not) leaves every line inactive and released.
public final class GPIOFeedback: Feedback, Service {
    private let config: GPIOConfig
    private let torch: OutputLine?
    private let player: PatternPlayer
    private let buzzer: Buzzer?
    private let flash: OutputLine?
    private let button = Mutex<TriggerButton?>(nil)
    private let logger: Logger

    /// Requests the configured lines, all inactive.
    public init(config: GPIOConfig, logger: Logger) {
        self.config = config
        self.logger = logger
        func request<Line>(_ role: String, _ make: () throws(GPIOError) -> Line) -> Line? {
            do {
                let line = try make()
                logger.info("gpio \(role) ready")
                return line
            } catch {
                logger.error("gpio \(error.description); running without it")
                return nil
            }
        }
        torch = config.torch.flatMap { line in request("torch") { () throws(GPIOError) in try OutputLine(role: "torch", config: line) } }
        flash = config.flash.flatMap { line in request("flash") { () throws(GPIOError) in try OutputLine(role: "flash", config: line) } }
        switch config.buzzer {
        case .active(let line):
            buzzer = request("buzzer") { () throws(GPIOError) in .line(try OutputLine(role: "buzzer", config: line)) }
        case .passive(let chip, let channel, let frequency):
            buzzer = request("buzzer") { () throws(GPIOError) in .pwm(try PWMChannel(chip: chip, channel: channel, frequency: frequency)) }
        case nil:
            buzzer = nil
        }
        player = PatternPlayer(buzzer: buzzer, flash: flash)
    }

    /// Watches the trigger button, if one is configured and could be requested; `onPress` runs on its thread.
    public func watchTrigger(_ onPress: @escaping @Sendable () -> Void) {
        guard let line = config.trigger else { return }
        do {
            let input = try InputLine(role: "trigger", config: line)
            logger.info("gpio trigger ready")
            button.withLock { $0 = TriggerButton(line: input, debounceSeconds: config.debounceSeconds, logger: logger, onPress: onPress) }
        } catch {
            logger.error("gpio \(error.description); running without it")
        }
    }

    public func setTorch(_ on: Bool) { torch?.set(on) }
    public func goodRead() { player.play(config.goodRead) }
    public func error() { player.play(config.error) }
    public func held() { player.play(config.held) }
    public func dropped() { player.play(config.dropped) }
    /// The named pattern, or the `rejected` one when the name is not configured.
    public func rejected(_ name: String?) { player.play(name.flatMap { config.named[$0] } ?? config.rejected) }
    public func beep() { player.play(config.beep) }

    public func run() async throws {
        player.play(config.startup)
        // Returns on graceful shutdown, throws on cancellation (another service failed): release either way.
        try? await gracefulShutdown()
        release()
    }

    /// Stops patterns and the button, and leaves every line inactive and released. Idempotent.
    public func release() {
        button.withLock { button in
            button?.stop()
            button = nil
        }
        player.stop()
        torch?.release()
        flash?.release()
        buzzer?.release()
    }
}
