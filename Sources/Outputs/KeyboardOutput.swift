import Codes
import FoundationEssentials
import Glibc
import Keyboard
import Logging
import ServiceLifecycle

/// A virtual keyboard device: where key actions become key presses. Backends: uinput (the board's
/// own session) and the USB HID gadget (the board as the POS PC's keyboard).
protocol KeyboardDevice: OutputDevice {
    /// Types `actions` with `delay` seconds between strokes.
    func type(_ actions: [KeyAction], delay: Double) throws(DeviceError)
}

/// A keyboard wedge: each read typed through a `KeyboardDevice` on the host's layout.
public final class KeyboardOutput: Output {
    public let name: String
    private let config: KeyboardConfig
    private let format: OutputFormat
    private let typist: Typist
    private let worker: OutputWorker
    private let layout: KeyboardLayout
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
        self.layout = layout
        self.logger = logger
    }

    public func send(_ read: Read, done: @escaping @Sendable (Bool) -> Void) { worker.enqueue(read, done: done) }
    public var health: OutputHealth { worker.healthState.withLock { $0 } }

    public func run() async throws { await worker.run(thread: "keyboard", logger: logger) { [self] in serve() } }

    /// The output's thread: makes and opens its device, sends each read, closes the device once
    /// stopped. The device is this thread's alone.
    private func serve() {
        let device: any KeyboardDevice =
            switch config.backend {
            case .uinput: UInputKeyboard(path: config.device)
            case .hidGadget: HIDGadgetKeyboard(path: config.device, layout: layout, capsLockCompensation: config.capsLockCompensation)
            }
        worker.serve(device: device, format: format, logger: logger, ready: "ready, layout \(config.layout)") { item, bytes, _ throws(DeviceError) in
            let typed = typist.actions(for: bytes)
            if !typed.missing.isEmpty {
                worker.healthState.withLock { $0.failed["unmapped-character", default: 0] += typed.missing.count }
                logger.warning(
                    "\(name): layout \(config.layout) has no key for \(typed.missing.map { "'\($0)'" }.joined(separator: " ")): left out of read \(item.read.seq)"
                )
            }
            try device.type(typed.actions, delay: config.keyDelaySeconds)
        }
    }
}
