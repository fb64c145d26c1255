import Testing

@testable import Bridge

/// A payload from the broker or a file name from the spool in a log line: one line, bounded.
@Suite struct LogTextTests {
    @Test func controlCharactersAndSeparatorsAreEscaped() {
        let forged = "pause\nkiosk-scanner-mqtt: info: all is well\r\u{1b}[2J\u{2028}\\"
        #expect(LogText.escaped(forged) == #"pause\nkiosk-scanner-mqtt: info: all is well\r\u{1b}[2J\u{2028}\\"#)
        #expect(LogText.escaped([0x66, 0xFF, 0x0A]) == "f\u{FFFD}\\n")
    }

    @Test func longTextIsCutWithItsSize() {
        let text = LogText.escaped(String(repeating: "x", count: 1 << 20), limit: 10)
        #expect(text == "xxxxxxxxxx… (1048576 bytes in all)")
    }

    /// A command name the broker sent that is not allowed is named in the refusal, which is logged:
    /// C1 and the line separators in it are escaped too, not only C0 and DEL (refused earlier).
    @Test func aRefusedCommandNameIsEscaped() {
        let reason = Bridge.notAllowed("pause\u{9B}2J\u{85}\u{2028}forged\u{2029}", allowed: ["status"])
        #expect(reason == #"'pause\u{9b}2J\u{85}\u{2028}forged\u{2029}' is not allowed over MQTT; allowed: status"#)
        let long = Bridge.notAllowed(String(repeating: "x", count: 100), allowed: [])
        #expect(long == "'\(String(repeating: "x", count: 32))… (100 bytes in all)' is not allowed over MQTT; none are (mqtt.commands)")
    }
}
