import CGPIOLines
import Glibc
import Synchronization
import SystemPackage

/// A GPIO line that could not be requested, with what to do about it.
public struct GPIOError: Error, CustomStringConvertible {
    public let description: String

    init(_ role: String, _ line: GPIOLineConfig, errno code: Int32) {
        let reason =
            switch code {
            case ENOENT, ENODEV: "no such chip or line (kiosk-scanner gpio-test --list shows what there is)"
            case EBUSY: "busy: another program holds it (gpioinfo shows the consumer)"
            case EACCES, EPERM: "permission denied: the daemon's user needs the gpio group (or a udev rule for /dev/gpiochip*)"
            case EINVAL: "the chip has no such offset"
            case ELIBACC: "libgpiod is not installed (apt install libgpiod2, or libgpiod3 on Debian 13)"
            default: Errno(rawValue: code).description
            }
        description = "\(role) (\(line.description)): cannot request: \(reason)"
    }

    init(_ description: String) { self.description = description }
}

/// An output line, requested inactive. Safe from any thread; `release` leaves it inactive.
final class OutputLine: Sendable {
    let role: String
    private let handle: Mutex<OpaquePointer?>

    init(role: String, config: GPIOLineConfig) throws(GPIOError) {
        self.role = role
        let drive = config.drive == .openDrain ? Int32(KS_GPIO_OPEN_DRAIN.rawValue) : Int32(KS_GPIO_PUSH_PULL.rawValue)
        guard let line = ks_gpio_request_output(config.chip, config.line, config.activeLow ? 1 : 0, drive, 0, "kiosk-scanner") else {
            throw GPIOError(role, config, errno: errno)
        }
        handle = Mutex(line)
    }

    /// Drives the line active or inactive (a released line is left alone).
    func set(_ active: Bool) {
        handle.withLock { line in
            if let line { _ = ks_gpio_set_value(line, active ? 1 : 0) }
        }
    }

    /// Leaves the line inactive and gives it back.
    func release() {
        handle.withLock { line in
            guard let held = line else { return }
            _ = ks_gpio_set_value(held, 0)
            ks_gpio_release(held)
            line = nil
        }
    }
}

/// An input line reporting both edges.
final class InputLine: @unchecked Sendable {
    // Used by the button's thread only, and released by it.
    private var handle: OpaquePointer?

    init(role: String, config: GPIOLineConfig) throws(GPIOError) {
        let bias: Int32 =
            switch config.bias {
            case .asIs: Int32(KS_GPIO_BIAS_AS_IS.rawValue)
            case .disabled: Int32(KS_GPIO_BIAS_DISABLED.rawValue)
            case .pullUp: Int32(KS_GPIO_BIAS_PULL_UP.rawValue)
            case .pullDown: Int32(KS_GPIO_BIAS_PULL_DOWN.rawValue)
            }
        guard let line = ks_gpio_request_input(config.chip, config.line, config.activeLow ? 1 : 0, bias, "kiosk-scanner") else {
            throw GPIOError(role, config, errno: errno)
        }
        handle = line
    }

    /// Waits up to `milliseconds` for an edge; nil on timeout or error.
    func nextEdge(milliseconds: Int32) -> (active: Bool, timestamp: UInt64)? {
        guard let handle else { return nil }
        var descriptor = pollfd(fd: ks_gpio_event_fd(handle), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        var timestamp: UInt64 = 0
        let edge = ks_gpio_read_event(handle, &timestamp)
        return edge < 0 ? nil : (edge == 1, timestamp)
    }

    /// The logical level, nil on error.
    var active: Bool? {
        guard let handle else { return nil }
        let value = ks_gpio_get_value(handle)
        return value < 0 ? nil : value == 1
    }

    func release() {
        if let handle { ks_gpio_release(handle) }
        handle = nil
    }
}
