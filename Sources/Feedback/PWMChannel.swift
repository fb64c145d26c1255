import FoundationEssentials
import Glibc
import Synchronization

/// A passive buzzer's tone: one channel of a PWM chip under /sys/class/pwm, at half duty.
final class PWMChannel: Sendable {
    private let enable: String
    private let lock = Mutex(())

    /// Exports the channel if needed and sets its period for `frequency` Hz, disabled.
    init(chip: String, channel: Int, frequency: Double) throws(GPIOError) {
        let directory = "\(chip)/pwm\(channel)"
        if !FileManager.default.fileExists(atPath: directory) {
            guard Self.write("\(channel)", to: "\(chip)/export") else {
                throw GPIOError("buzzer (PWM \(chip) channel \(channel)): cannot export: \(String(cString: strerror(errno))) (is the PWM overlay enabled, e.g. dtoverlay=pwm?)")
            }
            // udev sets the new files' group a moment after the export.
            for _ in 0..<100 where !FileManager.default.isWritableFile(atPath: "\(directory)/enable") { usleep(10_000) }
        }
        enable = "\(directory)/enable"
        let period = Int((1e9 / frequency).rounded())
        // The duty cycle must never exceed the period, whatever the old period was.
        guard Self.write("0", to: enable), Self.write("0", to: "\(directory)/duty_cycle"), Self.write("\(period)", to: "\(directory)/period"),
              Self.write("\(period / 2)", to: "\(directory)/duty_cycle")
        else {
            throw GPIOError("buzzer (PWM \(directory)): cannot configure: \(String(cString: strerror(errno)))")
        }
    }

    /// Starts or stops the tone.
    func set(_ on: Bool) {
        lock.withLock { _ in _ = Self.write(on ? "1" : "0", to: enable) }
    }

    /// Stops the tone; the channel stays exported for the next start.
    func release() { set(false) }

    private static func write(_ text: String, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
}

/// The buzzer, as wired.
enum Buzzer: Sendable {
    case line(OutputLine)
    case pwm(PWMChannel)

    func set(_ on: Bool) {
        switch self {
        case .line(let line): line.set(on)
        case .pwm(let channel): channel.set(on)
        }
    }

    func release() {
        switch self {
        case .line(let line): line.release()
        case .pwm(let channel): channel.release()
        }
    }
}
