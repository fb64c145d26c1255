import ConfigFile
import Imaging
import Testing

@testable import Console

/// The viewport editor's lines are what check-config takes, and its verdict is check-config's.
@Suite struct ViewportCheckTests {
    @Test func aRectangleBecomesLinesTheConfigFileTakes() throws {
        let check = ViewportCheck(x: 0.1, y: 0.2, width: 0.5, height: 0.4567)
        #expect(check.ok && check.error == nil)
        #expect(check.lines == "viewport:\n  rect: [0.100, 0.200, 0.500, 0.457]\n")
        let config = try ConfigFile.parse("camera:\n  fps: 15\n" + check.lines, file: "k.conf")
        #expect(config.pipeline.viewport == .rect(x: 0.1, y: 0.2, width: 0.5, height: 0.457))
    }

    @Test func aRectangleOutsideTheFrameGetsCheckConfigsReason() {
        let check = ViewportCheck(x: 0.6, y: 0.2, width: 0.5, height: 0.5)
        #expect(!check.ok && check.lines == "viewport:\n  rect: [0.600, 0.200, 0.500, 0.500]\n")
        #expect(check.error == "lines:2: viewport.rect: rect must stay inside the frame (x+width and y+height at most 1)")
        #expect(ViewportCheck(x: -0.1, y: 0, width: 0.5, height: 0.5).error?.contains("out of range 0.0...1.0") == true)
        #expect(ViewportCheck(x: 1e300, y: 0, width: 0.5, height: 0.5).error?.contains("fractions of the frame") == true)
    }

    @Test(
        arguments: [
            ("viewport:\n  square: 0.5\n", nil),
            ("viewport:\n  square: 0.5\n  rect: [0, 0, 1, 1]\n", "lines:3: viewport.rect: square and rect exclude each other"),
            ("camera:\n  fps: 30\n", "lines:1: no viewport: key"),
            ("viewport:\n  rect: [0, 0, 1]\n", "lines:2: viewport.rect: expected [x, y, width, height], normalised to 0...1"),
            ("viewport: [1\n", "lines:2: YAML syntax"),
        ] as [(String, String?)])
    func pastedLines(_ lines: String, _ error: String?) {
        let check = ViewportCheck(lines: lines)
        #expect(check.ok == (error == nil) && check.lines == lines)
        if let error { #expect(check.error?.hasPrefix(error) == true, "\(String(describing: check.error))") }
    }

    @Test func decimals() {
        #expect(ViewportCheck.decimal(0) == "0.000" && ViewportCheck.decimal(1) == "1.000" && ViewportCheck.decimal(0.0005) == "0.001")
        #expect(ViewportCheck.decimal(-0.25) == "-0.250" && ViewportCheck.decimal(0.12345) == "0.123")
    }
}
