import Foundation
import ScannerTestSupport
import Testing

/// The daemon loads libgpiod at run time by its soname: the real libraries here, no emulator. One
/// binary takes Debian 12's 1.6 (libgpiod.so.2) or 2.x (libgpiod.so.3, scripts/libgpiod2's build),
/// and without either it still runs and says what to install.
@Suite struct GPIOLibraryTests {
    static let libgpiod2 = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/libgpiod2/lib").standardized.path

    /// The first line of `gpio-test --list` with `environment`.
    func library(_ environment: [String: String]) throws -> String {
        let result = try Tool.capture(Tool.scannerBinary, ["gpio-test", "--list"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return String(result.stdout.split(separator: "\n").first ?? "")
    }

    @Test func debianTwelvesLibgpiodIsTheOneFound() throws {
        #expect(try library([:]).hasPrefix("libgpiod 1.x (1.6"))
    }

    @Test func libgpiodTwoComesFirstWhereBothAreInstalled() throws {
        try #require(FileManager.default.fileExists(atPath: "\(Self.libgpiod2)/libgpiod.so.3"), "build it with scripts/setup")
        let line = try library(["LD_LIBRARY_PATH": Self.libgpiod2])
        #expect(line.hasPrefix("libgpiod 2.x (2."), "\(line)")
    }

    @Test func withoutLibgpiodTheLinesFailAndSayWhatToInstall() throws {
        // Empty libraries under both sonames, found first: each loads, and lacks libgpiod's functions.
        let directory = try TemporaryDirectory.shared.directory("gpio-library")
        for soname in ["libgpiod.so.3", "libgpiod.so.2"] {
            let built = try Tool.capture("/usr/bin/gcc", ["-shared", "-o", "\(directory)/\(soname)", "-x", "c", "/dev/null"])
            try #require(built.status == 0, "\(built.stderr)")
        }
        let environment = ["LD_LIBRARY_PATH": directory]
        let line = try library(environment)
        #expect(line.hasPrefix("libgpiod: not installed (libgpiod.so.3 lacks a function; libgpiod.so.2 lacks a function)"), "\(line)")

        let config = "\(directory)/torch.conf"
        try "gpio:\n  torch: { chip: gpiochip0, line: 17 }\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try Tool.capture(Tool.scannerBinary, ["gpio-test", "--config", config, "--button-seconds", "0"], environment: environment)
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL torch (gpiochip0 line 17): cannot request: libgpiod is not installed (apt install libgpiod2"), "\(result.stdout)")
    }
}
