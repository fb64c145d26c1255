import Codes
import ConfigReading
import Documents
import Keyboard
import Outputs

/// The `outputs` list: serial ports and keyboard wedges, each with its framing.
extension ConfigFile {
    static func readOutputs(_ value: Value, documents: DocumentsConfig) throws(ConfigError) -> [OutputConfig] {
        var outputs: [OutputConfig] = []
        for item in try value.optionalItems() {
            var section = try Section(node: item.node, file: item.file, path: item.key, line: item.line)
            guard let type = section.value("type") else { throw section.error("an output needs type: serial or keyboard") }
            let output: OutputConfig
            switch try type.string() {
            case "serial": output = try serial(&section, documents: documents)
            case "keyboard": output = try keyboard(&section, documents: documents)
            case "hid-pos": output = try hidPOS(&section, documents: documents)
            default: throw type.error("'\(try type.string())' is not one of serial, keyboard, hid-pos (the socket is always on)")
            }
            try section.finish()
            outputs.append(output)
        }
        return outputs
    }

    private static func serial(_ section: inout Section, documents: DocumentsConfig) throws(ConfigError) -> OutputConfig {
        guard let device = section.value("device") else { throw section.error("a serial output needs device (e.g. /dev/ttyUSB0 or /dev/ttyGS0)") }
        var serial = SerialConfig(device: try device.absolutePath())
        if let value = section.value("baud") {
            serial.baud = try value.int(in: 50...4_000_000)
            guard SerialConfig.bauds.contains(serial.baud) else {
                throw value.error("\(serial.baud) is not one of \(SerialConfig.bauds.map(String.init).joined(separator: ", "))")
            }
        }
        if let value = section.value("data_bits") { serial.dataBits = try value.int(in: 5...8) }
        if let value = section.value("parity") { serial.parity = try value.choice(SerialConfig.Parity.self) }
        if let value = section.value("stop_bits") { serial.stopBits = try value.int(in: 1...2) }
        if let value = section.value("flow") { serial.flow = try value.choice(SerialConfig.Flow.self) }
        var output = OutputConfig(kind: .serial(serial), format: OutputFormat())
        try readFraming(&section, into: &output, keyboard: false, documents: documents)
        return output
    }

    private static func keyboard(_ section: inout Section, documents: DocumentsConfig) throws(ConfigError) -> OutputConfig {
        let backend = try section.value("backend")?.choice(KeyboardConfig.Backend.self) ?? .uinput
        let device = try section.value("device").map { value throws(ConfigError) in try value.absolutePath() }
        var keyboard = KeyboardConfig(backend: backend, device: device ?? (backend == .uinput ? "/dev/uinput" : "/dev/hidg0"))
        let layoutValue = section.value("layout")
        if let layoutValue { keyboard.layout = try layoutValue.string() }
        let layout: KeyboardLayout
        do {
            layout = try Keymap.compile(keyboard.layout)
        } catch {
            throw layoutValue?.error(error.description) ?? section.error(error.description)
        }
        if let value = section.value("missing") { keyboard.missing = try value.choice(Typist.Missing.self) }
        if let value = section.value("gs_key") {
            keyboard.groupSeparator = try keyChord(value)
            if case .character(let character, _)? = keyboard.groupSeparator, keyboard.groupSeparator?.action(on: layout) == nil {
                throw value.error("layout \(keyboard.layout) has no single key for '\(character)'")
            }
        }
        if let value = section.value("key_delay") { keyboard.keyDelaySeconds = try value.double(in: 0...1) }
        if let value = section.value("caps_lock_compensation") { keyboard.capsLockCompensation = try value.bool() }
        var output = OutputConfig(kind: .keyboard(keyboard), format: .keyboard)
        try readFraming(&section, into: &output, keyboard: true, documents: documents)
        return output
    }

    private static func hidPOS(_ section: inout Section, documents: DocumentsConfig) throws(ConfigError) -> OutputConfig {
        guard let device = section.value("device") else {
            throw section.error("a hid-pos output needs device (the gadget's /dev/hidgN, as kiosk-scanner-gadget start prints it)")
        }
        var pos = HIDPOSConfig(device: try device.absolutePath())
        if let value = section.value("host_control") { pos.hostControl = try value.bool() }
        // The AIM identifier has its own fields in the report: none in the data, and no terminator.
        var format = OutputFormat()
        format.terminator = .none
        var output = OutputConfig(kind: .hidPOS(pos), format: format)
        try readFraming(&section, into: &output, keyboard: false, documents: documents)
        return output
    }

    /// Prefix, suffix, terminator, AIM identifier, GS1 separator, control characters, the hold queue, and the formatting.
    private static func readFraming(
        _ section: inout Section, into output: inout OutputConfig, keyboard: Bool, documents: DocumentsConfig
    ) throws(ConfigError) {
        if let value = section.value("prefix") { output.format.prefix = try escaped(value) }
        if let value = section.value("suffix") { output.format.suffix = try escaped(value) }
        if let value = section.value("terminator") {
            let text = try value.string()
            switch text.lowercased() {
            case "none": output.format.terminator = .none
            case "cr": output.format.terminator = .cr
            case "lf": output.format.terminator = .lf
            case "crlf": output.format.terminator = .crlf
            case "tab": output.format.terminator = .tab
            case "enter" where keyboard: output.format.terminator = .cr
            default: output.format.terminator = .custom(try escaped(value))
            }
        }
        if let value = section.value("aim") { output.format.aim = try value.bool() }
        if let value = section.value("gs1_separator") {
            let text = try value.string()
            output.format.gs1Separator = text == "keep" ? .keep : .replace(try escaped(value))
        }
        if let value = section.value("control_characters") { output.format.controlCharacters = try controlCharacters(value) }
        if let value = section.value("hold_count") { output.holdCount = try value.int(in: 1...10_000) }
        if let value = section.value("hold_seconds") { output.holdSeconds = try value.double(in: 0.1...86400) }
        try readFormatting(&section, into: &output.format.formatting, documents: documents)
    }

    /// `keep`, `drop`, `caret`, `escape`, or `{replace: TEXT}` (TEXT with the framing's escapes).
    static func controlCharacters(_ value: Value) throws(ConfigError) -> ControlCharacters {
        if case .scalar(let scalar) = value.node {
            if let policy = ControlCharacters.named[scalar.string] { return policy }
            if scalar.string == "replace" { throw value.error("replace takes the text each one becomes, e.g. {replace: \"?\"}") }
            throw value.error("'\(scalar.string)' is not one of \(ControlCharacters.names)")
        }
        guard case .mapping = value.node else { throw value.error("expected one of \(ControlCharacters.names)") }
        var section = try Section(node: value.node, file: value.file, path: value.key, line: value.line)
        guard let text = section.value("replace") else { throw section.error("expected one of \(ControlCharacters.names)") }
        try section.finish()
        return .replace(try escaped(text))
    }

    static func escaped(_ value: Value) throws(ConfigError) -> [UInt8] {
        guard let bytes = OutputFormat.unescape(try value.string()) else {
            throw value.error("bad escape (use \\r \\n \\t \\\\ \\xHH or <GS> <RS> <EOT> <ETX> <STX> <ESC>)")
        }
        return bytes
    }

    /// `ctrl+]`, `ctrl+shift+x`, `tab`, or `none`: modifiers, then a character as the host's
    /// layout types it.
    private static func keyChord(_ value: Value) throws(ConfigError) -> KeyChord? {
        let text = try value.string()
        if text == "none" { return nil }
        if text == "tab" { return .tab }
        var parts = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        // "ctrl++" is Ctrl and the + key.
        if text.hasSuffix("++") { parts = Array(parts.dropLast(2)) + ["+"] }
        guard let last = parts.popLast(), last.count == 1 else {
            throw value.error("expected modifiers and one character, e.g. ctrl+] (or tab, or none)")
        }
        var modifiers: Modifiers = []
        for part in parts {
            switch part.lowercased() {
            case "ctrl": modifiers.insert(.ctrl)
            case "shift": modifiers.insert(.shift)
            case "alt": modifiers.insert(.alt)
            case "altgr": modifiers.insert(.altGr)
            default: throw value.error("'\(part)' is not a modifier (ctrl, shift, alt, altgr)")
            }
        }
        return .character(Character(last), modifiers)
    }
}
