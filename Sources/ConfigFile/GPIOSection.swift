import Codes
import ConfigReading
import Feedback
import ScannerProtocol

/// The `gpio` and `feedback` sections.
extension ConfigFile {
    static func readGPIO(_ section: inout Section, into gpio: inout GPIOConfig) throws(ConfigError) {
        var torch = try section.section("torch")
        gpio.torch = try line(&torch, input: false)
        var flash = try section.section("flash")
        gpio.flash = try line(&flash, input: false)
        var trigger = try section.section("trigger")
        gpio.trigger = try line(&trigger, input: true)
        var buzzer = try section.section("buzzer")
        gpio.buzzer = try readBuzzer(&buzzer)
        if let value = section.value("debounce") { gpio.debounceSeconds = try value.double(in: 0...1) }
        try section.finish()
    }

    static func readFeedback(_ section: inout Section, into gpio: inout GPIOConfig, acknowledge: SocketConfig.Acknowledge) throws(ConfigError) {
        let patterns: [(key: String, field: WritableKeyPath<GPIOConfig, FeedbackPattern>)] = [
            ("good_read", \.goodRead), ("error", \.error), ("held", \.held), ("dropped", \.dropped), ("startup", \.startup), ("beep", \.beep),
        ]
        for (key, field) in patterns {
            var patternSection = try section.section(key)
            gpio[keyPath: field] = try pattern(&patternSection, default: gpio[keyPath: field])
        }
        // Read after `error`: left out, a nak plays the error pattern as configured.
        var rejected = try section.section("rejected")
        if !rejected.isEmpty { gpio.rejected = try pattern(&rejected, default: gpio.rejected) }
        var named = try section.section("named")
        for name in named.allKeys() {
            var patternSection = try named.section(name)
            guard Command.isReason(name) else {
                throw patternSection.error("a pattern's name is what `nak SEQ NAME` sends: letters, digits, '-' and '_', at most 32")
            }
            gpio.named[name] = try pattern(&patternSection, default: gpio.rejected)
        }
        try named.finish()
        if let value = section.value("beep_after") {
            gpio.beepAfter = try value.choice(GPIOConfig.BeepAfter.self)
            // Without acks no read would ever sound the good-read pattern.
            if gpio.beepAfter == .acknowledged && acknowledge != .required {
                throw value.error("acknowledged needs socket.acknowledge: required")
            }
        }
        try section.finish()
    }

    /// A line section, or nil when it is empty (the line is not wired).
    private static func line(_ section: inout Section, input: Bool) throws(ConfigError) -> GPIOLineConfig? {
        guard !section.isEmpty else { return nil }
        guard let chip = section.value("chip"), let line = section.value("line") else {
            throw section.error("a GPIO line needs chip (gpiochip0, a number, a path or a label) and line (an offset or a name such as GPIO17)")
        }
        var config = GPIOLineConfig(chip: try chip.string(), line: try line.string())
        guard !config.chip.isEmpty else { throw chip.error("must name a chip") }
        guard !config.line.isEmpty else { throw line.error("must name a line") }
        if let value = section.value("active_low") { config.activeLow = try value.bool() }
        if input {
            if let value = section.value("bias") { config.bias = try value.choice(GPIOLineConfig.Bias.self) }
        } else {
            if let value = section.value("drive") { config.drive = try value.choice(GPIOLineConfig.Drive.self) }
        }
        try section.finish()
        return config
    }

    private static func readBuzzer(_ section: inout Section) throws(ConfigError) -> BuzzerConfig? {
        guard !section.isEmpty else { return nil }
        let type = section.value("type")
        let kind = try type?.string() ?? "active"
        switch kind {
        case "active":
            return try line(&section, input: false).map { .active($0) }
        case "passive":
            var chip = BuzzerConfig.defaultPWMChip
            var channel = BuzzerConfig.defaultPWMChannel
            var frequency = BuzzerConfig.defaultFrequency
            if let value = section.value("pwm_chip") {
                chip = try value.string()
                guard chip.hasPrefix("/") else { throw value.error("must be a sysfs path such as /sys/class/pwm/pwmchip0") }
            }
            if let value = section.value("pwm_channel") { channel = try value.int(in: 0...63) }
            if let value = section.value("frequency") { frequency = try value.double(in: 20...20000) }
            try section.finish()
            return .passive(pwmChip: chip, channel: channel, frequency: frequency)
        default:
            throw type!.error("'\(kind)' is not one of active (a GPIO line), passive (a PWM channel)")
        }
    }

    private static func pattern(_ section: inout Section, default pattern: FeedbackPattern) throws(ConfigError) -> FeedbackPattern {
        var result = pattern
        if let value = section.value("beep") { result.beep = try value.double(in: 0...5) }
        if let value = section.value("flash") { result.flash = try value.double(in: 0...5) }
        if let value = section.value("repeat") { result.repeatCount = try value.int(in: 1...10) }
        if let value = section.value("gap") { result.gap = try value.double(in: 0...5) }
        try section.finish()
        return result
    }
}
