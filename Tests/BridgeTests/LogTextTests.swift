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
}
