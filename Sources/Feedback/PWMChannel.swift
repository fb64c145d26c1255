import FoundationEssentials
import Glibc
import Synchronization
import SystemPackage

/// A passive buzzer's tone: one channel of a PWM chip under /sys/class/pwm, at half duty.
final class PWMChannel: Sendable {
    private let enable: String
    private let lock = Mutex(())

    /// Exports the channel if needed and sets its period for `frequency` Hz, disabled.
    init(chip: String, channel: Int, frequency: Double) throws(GPIOError) {
        let directory = "\(chip)/pwm\(channel)"
        if !FileManager.default.fileExists(atPath: directory) {
            do {
                try Self.write("\(channel)", to: "\(chip)/export")
            } catch {
                throw GPIOError("buzzer (PWM \(chip) channel \(channel)): cannot export: \(error) (is the PWM overlay enabled, e.g. dtoverlay=pwm?)")
            }
            // udev sets the new files' group a moment after the export.
            for _ in 0..<100 where !FileManager.default.isWritableFile(atPath: "\(directory)/enable") { usleep(10_000) }
        }
        enable = "\(directory)/enable"
        let period = Int((1e9 / frequency).rounded())
        // The duty cycle must never exceed the period, whatever the old period was.
        do {
            try Self.write("0", to: enable)
            try Self.write("0", to: "\(directory)/duty_cycle")
            try Self.write("\(period)", to: "\(directory)/period")
            try Self.write("\(period / 2)", to: "\(directory)/duty_cycle")
        } catch {
            throw GPIOError("buzzer (PWM \(directory)): cannot configure: \(error)")
        }
    }

    /// Starts or stops the tone.
    func set(_ on: Bool) {
        lock.withLock { _ in try? Self.write(on ? "1" : "0", to: enable) }
    }

    /// Stops the tone; the channel stays exported for the next start.
    func release() { set(false) }

    /// Writes a sysfs attribute in one write, as the kernel wants it.
    private static func write(_ text: String, to path: String) throws(Errno) {
        do {
            let file = try FileDescriptor.open(path, .writeOnly, options: .closeOnExec)
            _ = try file.closeAfter { try file.writeAll(text.utf8) }
        } catch let error as Errno {
            throw error
        } catch {
            throw Errno.ioError
        }
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
