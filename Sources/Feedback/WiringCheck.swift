import CGPIOLines
import FoundationEssentials
import Glibc

/// The chips and lines libgpiod sees, and a hands-on check of the configured wiring (`gpio-test`).
public enum WiringCheck {
    /// One line of a chip.
    public struct Line: Sendable {
        public let offset: Int
        public let name: String
        public let consumer: String
        public let used: Bool
    }

    /// One GPIO chip.
    public struct Chip: Sendable {
        public let path: String
        public let name: String
        public let label: String
        public let lines: [Line]
    }

    /// The libgpiod generation and version in use, or why none could be loaded.
    public static var library: String {
        let generation = ks_gpio_api_generation()
        let version = String(cString: ks_gpio_library_version())
        return generation == 0 ? "libgpiod: \(version)" : "libgpiod \(generation).x (\(version))"
    }

    /// Every chip at /dev/gpiochip0...63, with its lines.
    public static func chips() -> [Chip] {
        (0..<64).compactMap { number in
            var info = ks_gpio_chip_info()
            guard ks_gpio_chip_info_at("/dev/gpiochip\(number)", &info) == 0 else { return nil }
            let path = text(info.path)
            let lines = (0..<Int(info.lines)).map { offset in
                var name = [CChar](repeating: 0, count: 64)
                var consumer = [CChar](repeating: 0, count: 64)
                var used: Int32 = 0
                _ = ks_gpio_line_info_at(path, UInt32(offset), &name, name.count, &consumer, consumer.count, &used)
                return Line(
                    offset: offset, name: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                    consumer: String(decoding: consumer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), used: used != 0)
            }
            return Chip(path: path, name: text(info.name), label: text(info.label), lines: lines)
        }
    }

    /// Drives each configured output so an installer can see and hear it, then waits for a button
    /// press; `say` reports each step. False when a configured line could not be used.
    public static func run(_ config: GPIOConfig, buttonSeconds: Double, say: (String) -> Void) -> Bool {
        var ok = true
        func attempt<Line>(_ role: String, _ make: () throws(GPIOError) -> Line) -> Line? {
            do {
                return try make()
            } catch {
                say("FAIL \(error.description)")
                ok = false
                return nil
            }
        }
        if let line = config.torch, let torch = attempt("torch", { () throws(GPIOError) in try OutputLine(role: "torch", config: line) }) {
            say("torch (\(line.description)): on for 1 s")
            torch.set(true)
            usleep(1_000_000)
            torch.release()
            say("torch: off")
        }
        if let line = config.flash, let flash = attempt("flash", { () throws(GPIOError) in try OutputLine(role: "flash", config: line) }) {
            say("flash (\(line.description)): 3 flashes")
            for _ in 0..<3 { pulse(flash.set, seconds: 0.2) }
            flash.release()
        }
        switch config.buzzer {
        case .active(let line):
            if let buzzer = attempt("buzzer", { () throws(GPIOError) in try OutputLine(role: "buzzer", config: line) }) {
                say("buzzer (\(line.description)): 3 beeps")
                for _ in 0..<3 { pulse(buzzer.set, seconds: 0.15) }
                buzzer.release()
            }
        case .passive(let chip, let channel, let frequency):
            if let buzzer = attempt("buzzer", { () throws(GPIOError) in try PWMChannel(chip: chip, channel: channel, frequency: frequency) }) {
                say("buzzer (PWM \(chip) channel \(channel), \(Int(frequency)) Hz): 3 beeps")
                for _ in 0..<3 { pulse(buzzer.set, seconds: 0.15) }
                buzzer.release()
            }
        case nil:
            break
        }
        if let line = config.trigger, let input = attempt("trigger", { () throws(GPIOError) in try InputLine(role: "trigger", config: line) }) {
            say("trigger (\(line.description)): press the button within \(Int(buttonSeconds)) s")
            let deadline = Date().addingTimeInterval(buttonSeconds)
            var pressed = false
            while !pressed, deadline.timeIntervalSinceNow > 0 {
                if let edge = input.nextEdge(milliseconds: 100), edge.active { pressed = true }
            }
            input.release()
            say(pressed ? "trigger: pressed" : "FAIL trigger: no press seen (check the wiring, active_low and bias)")
            ok = ok && pressed
        }
        return ok
    }

    private static func pulse(_ set: (Bool) -> Void, seconds: Double) {
        set(true)
        usleep(UInt32(seconds * 1e6))
        set(false)
        usleep(UInt32(seconds * 1e6))
    }

    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
