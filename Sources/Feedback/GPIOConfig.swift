/// One GPIO line: which chip, which line on it, and how it is driven or biased.
public struct GPIOLineConfig: Sendable, Hashable {
    /// How an output drives the line.
    public enum Drive: String, Sendable, Hashable, CaseIterable {
        case pushPull = "push-pull"
        case openDrain = "open-drain"
    }

    /// The pull an input gets.
    public enum Bias: String, Sendable, Hashable, CaseIterable {
        case asIs = "as-is"
        case disabled
        case pullUp = "pull-up"
        case pullDown = "pull-down"
    }

    /// `gpiochip0`, a chip number, a path such as `/dev/gpiochip0`, or a label such as `pinctrl-bcm2711`.
    public var chip: String
    /// An offset (`17`) or a line name (`GPIO17`).
    public var line: String
    /// Active means low on the wire (an LED or button wired to the supply).
    public var activeLow = false
    public var drive = Drive.pushPull
    public var bias = Bias.asIs

    public init(chip: String, line: String) {
        self.chip = chip
        self.line = line
    }

    /// How logs and `gpio-test` name the line.
    public var description: String { "\(chip) line \(line)" }
}

/// The buzzer: an active one switched by a GPIO line, or a passive one driven by a PWM channel.
public enum BuzzerConfig: Sendable, Hashable {
    case active(GPIOLineConfig)
    /// A passive buzzer on `/sys/class/pwm`: the chip's sysfs directory, the channel, and the tone in Hz.
    case passive(pwmChip: String, channel: Int, frequency: Double)

    /// A passive buzzer's settings where the config leaves them out: the first PWM chip's first
    /// channel, at 2.7 kHz (the resonance of common piezo buzzers).
    public static let defaultPWMChip = "/sys/class/pwm/pwmchip0"
    public static let defaultPWMChannel = 0
    public static let defaultFrequency = 2700.0
}

/// A feedback pattern: `repeat` times a beep and a flash of the given lengths, `gap` apart.
public struct FeedbackPattern: Sendable, Hashable {
    /// Seconds the buzzer sounds (0: silent).
    public var beep: Double
    /// Seconds the flash LED is lit (0: dark).
    public var flash: Double
    public var repeatCount: Int
    /// Seconds between repeats.
    public var gap: Double

    public init(beep: Double, flash: Double, repeatCount: Int = 1, gap: Double = 0) {
        self.beep = beep
        self.flash = flash
        self.repeatCount = repeatCount
        self.gap = gap
    }

    /// How long the whole pattern lasts.
    public var duration: Double {
        Double(repeatCount) * max(beep, flash) + Double(max(repeatCount - 1, 0)) * gap
    }
}

/// The GPIO lines and the feedback patterns. No line configured means no GPIO is touched.
public struct GPIOConfig: Sendable, Hashable {
    public var torch: GPIOLineConfig?
    public var buzzer: BuzzerConfig?
    public var flash: GPIOLineConfig?
    /// The trigger button (an input; presses start a scan in trigger mode).
    public var trigger: GPIOLineConfig?
    /// Edges closer than this to the last accepted one are contact bounce.
    public var debounceSeconds = 0.02

    public var goodRead = FeedbackPattern(beep: 0.08, flash: 0.08)
    public var error = FeedbackPattern(beep: 0.3, flash: 0.3, repeatCount: 2, gap: 0.1)
    /// A read held for the POS (no client consumes scans now): it is not rung up yet.
    public var held = FeedbackPattern(beep: 0.04, flash: 0.4, repeatCount: 3, gap: 0.06)
    /// A read that will never reach the POS (dropped from the hold queue, or taken by nothing).
    public var dropped = FeedbackPattern(beep: 0.5, flash: 0.5, repeatCount: 3, gap: 0.1)
    public var startup = FeedbackPattern(beep: 0.05, flash: 0.05, repeatCount: 2, gap: 0.08)
    /// The socket's `beep` command.
    public var beep = FeedbackPattern(beep: 0.15, flash: 0)
    /// A read a consumer refused (`nak SEQ`) without naming a pattern, or naming one not in `named`:
    /// the `error` pattern, whatever it is configured to be, until `rejected` is set itself.
    public var rejected: FeedbackPattern {
        get { configuredRejected ?? error }
        set { configuredRejected = newValue }
    }
    /// `feedback.rejected` when the config gives it; nil follows `error`.
    private var configuredRejected: FeedbackPattern?
    /// Patterns a consumer may name in `nak SEQ NAME` (`not-found`, `age-check`...).
    public var named: [String: FeedbackPattern] = [:]
    /// When the good-read pattern sounds.
    public var beepAfter = BeepAfter.accepted

    /// When the good-read pattern sounds (`feedback.beep_after`).
    public enum BeepAfter: String, Sendable, Hashable, CaseIterable {
        /// As soon as the code is decoded.
        case decoded
        /// Once the socket delivered the read or an output sent it (as commercial scanners do).
        case accepted
        /// Once a socket consumer acked it (`socket.acknowledge: required`): the POS has it on the bill.
        case acknowledged
    }

    public init() {}

    /// Whether any line is configured.
    public var isEmpty: Bool { torch == nil && buzzer == nil && flash == nil && trigger == nil }
}
