import FoundationEssentials
import Glibc
import Keymaps
import Logging
import ScannerCore
import ScannerProtocol

/// Why a keyboard device could not type.
struct KeyboardError: Error, CustomStringConvertible {
    enum Kind { case unavailable, stalled, stalledMidRead }
    let kind: Kind
    let description: String
}

/// A virtual keyboard device: where key actions become key presses. Backends: uinput (the board's
/// own session) and the USB HID gadget (the board as the POS PC's keyboard).
protocol KeyboardDevice: AnyObject, Sendable {
    /// Opens (creates) the device and waits until it is usable.
    func open() throws(KeyboardError)
    /// Types `actions` with `delay` seconds between strokes.
    func type(_ actions: [KeyAction], delay: Double) throws(KeyboardError)
    func close()
}

/// A keyboard wedge: each read typed through a `KeyboardDevice` on the host's layout.
public final class KeyboardOutput: Output {
    public let name: String
    private let config: KeyboardConfig
    private let format: OutputFormat
    private let typist: Typist
    private let worker: OutputWorker
    private let device: KeyboardDevice
    private let logger: Logger

    public init(_ output: OutputConfig, keyboard: KeyboardConfig, logger: Logger) {
        name = output.name
        config = keyboard
        format = output.format
        let layout: KeyboardLayout
        do {
            layout = try Keymap.compile(keyboard.layout)
        } catch {
            // The config check compiled it: only xkb-data removed since then gets here.
            logger.error("\(output.name): layout \(keyboard.layout): \(error.description); every character counts as unmapped")
            layout = KeyboardLayout(name: keyboard.layout, strokes: [:], capsKeys: [])
        }
        typist = Typist(layout: layout, missing: keyboard.missing, groupSeparator: keyboard.groupSeparator)
        worker = OutputWorker(name: output.name, capacity: output.holdCount, maxAge: output.holdSeconds)
        device =
            switch keyboard.backend {
            case .uinput: UInputKeyboard(path: keyboard.device)
            case .hidGadget: HIDGadgetKeyboard(path: keyboard.device, layout: layout, capsLockCompensation: keyboard.capsLockCompensation)
            }
        self.logger = logger
        OwnThread.start(name: "keyboard") { [self] in run() }
    }

    public func send(_ read: Read, done: @escaping @Sendable (Bool) -> Void) { worker.enqueue(read, done: done) }
    public var health: OutputHealth { worker.healthState.withLock { $0 } }
    public func stop() { worker.stop() }

    private func run() {
        var open = false
        // Logged when it changes; the first state is always logged.
        var lastProblem: String? = "starting"
        func report(_ problem: String?, state: String = "waiting") {
            guard problem != lastProblem else { return }
            if let problem {
                logger.warning("\(name): \(problem)")
                worker.setState(state, problem)
            } else {
                logger.info("\(name): ready, layout \(config.layout)")
                worker.setState("ok")
            }
            lastProblem = problem
        }
        while !worker.isStopped {
            if !open {
                do {
                    try device.open()
                    open = true
                    report(nil)
                } catch {
                    report(error.description)
                    _ = worker.peek(timeout: 0)
                    usleep(500_000)
                    continue
                }
            }
            guard let (item, bytes) = worker.peek(timeout: 0.25, format: format, logger: logger) else { continue }
            let typed = typist.actions(for: bytes)
            if !typed.missing.isEmpty {
                worker.healthState.withLock { $0.failed["unmapped-character", default: 0] += typed.missing.count }
                logger.warning(
                    "\(name): layout \(config.layout) has no key for \(typed.missing.map { "'\($0)'" }.joined(separator: " ")): left out of read \(item.read.seq)"
                )
            }
            do {
                try device.type(typed.actions, delay: config.keyDelaySeconds)
                worker.sent()
                if lastProblem != nil { report(nil) }
            } catch {
                switch error.kind {
                case .stalled:
                    // Nothing was typed: the read waits (bounded by the queue) for the host to poll again.
                    report(error.description, state: "error")
                    usleep(250_000)
                case .stalledMidRead:
                    report(error.description, state: "error")
                    worker.giveUp(reason: "stalled-mid-read")
                case .unavailable:
                    device.close()
                    open = false
                    report(error.description)
                }
            }
        }
        device.close()
        worker.finished()
    }
}
