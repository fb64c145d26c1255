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
public final class KeyboardOutput: WorkerOutput {
    static let thread = "keyboard"
    let worker: OutputWorker
    private let config: KeyboardConfig
    private let typist: Typist
    private let layout: KeyboardLayout

    public init(_ output: OutputConfig, keyboard: KeyboardConfig, logger: Logger) {
        worker = OutputWorker(output, logger: logger)
        config = keyboard
        let layout: KeyboardLayout
        do {
            layout = try Keymap.compile(keyboard.layout)
        } catch {
            // The config check compiled it: only xkb-data removed since then gets here.
            logger.error("\(output.name): layout \(keyboard.layout): \(error.description); every character counts as unmapped")
            layout = KeyboardLayout(name: keyboard.layout, strokes: [:], capsKeys: [])
        }
        typist = Typist(layout: layout, missing: keyboard.missing, groupSeparator: keyboard.groupSeparator)
        self.layout = layout
    }

    func serve() {
        let device: any KeyboardDevice =
            switch config.backend {
            case .uinput: UInputKeyboard(path: config.device)
            case .hidGadget: HIDGadgetKeyboard(path: config.device, layout: layout, capsLockCompensation: config.capsLockCompensation)
            }
        worker.serve(device: device, ready: "ready, layout \(config.layout)") { item, bytes, _ throws(DeviceError) in
            let typed = typist.actions(for: bytes)
            if !typed.missing.isEmpty {
                worker.healthState.withLock { $0.failed["unmapped-character", default: 0] += typed.missing.count }
                worker.logger.warning(
                    "\(name): layout \(config.layout) has no key for \(typed.missing.map { "'\($0)'" }.joined(separator: " ")): left out of read \(item.read.seq)"
                )
            }
            try device.type(typed.actions, delay: config.keyDelaySeconds)
        }
    }
}
