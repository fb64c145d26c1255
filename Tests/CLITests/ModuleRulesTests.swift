import Foundation
import ScannerTestSupport
import Testing

/// What the source tree promises about its modules, read from the files themselves.
@Suite struct ModuleRulesTests {
    /// The modules that may reach the C library directly: Platform, the OS boundary, and the
    /// modules that wrap a device or a C library. The C shim targets (CZBar, CV4L2, ...) may too.
    static let cFacing: Set<String> = ["Platform", "Capture", "Feedback", "Outputs", "Keyboard", "ImageFiles", "Decoding", "Bridge"]

    static let sources = Markdown.root.appendingPathComponent("Sources")

    /// A C shim target: C, then a capital (CZBar, CGPIOLines), unlike Capture or Codes.
    static func isShim(_ module: String) -> Bool {
        module.count > 1 && module.first == "C" && module.dropFirst().first!.isUppercase
    }

    /// Each Swift file under Sources/ with the modules it imports, by module folder.
    static func imports() throws -> [(module: String, file: String, imported: Set<String>)] {
        var found: [(String, String, Set<String>)] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let folder = sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                found.append((module, "\(module)/\(file)", Set(text.split(separator: "\n").compactMap(importedModule))))
            }
        }
        return found
    }

    /// The module an import line names: `import Glibc`, `@preconcurrency import Glibc`,
    /// `import func Glibc.write`, indented inside `#if`; nil for any other line.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(separator: " ").drop { $0.hasPrefix("@") }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        if words.count > 1, ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"].contains(words.first!) {
            words = words.dropFirst()
        }
        return words.first.map { String($0.split(separator: ".")[0]) }
    }

    /// Issue #34: Glibc (or Foundation, which re-exports it) is imported only at the OS boundary,
    /// so that the daemon, the tools, the config and the protocol reach the OS through Platform's
    /// typed wrappers and swift-system.
    @Test func onlyPlatformAndTheCFacingModulesImportGlibc() throws {
        let all = try Self.imports()
        let modules = Set(all.map(\.module))
        #expect(Self.cFacing.isSubset(of: modules), "a module in the list is gone: \(Self.cFacing.subtracting(modules).sorted())")
        // The rule reads what it means to: Platform's own imports are found.
        #expect(all.contains { $0.module == "Platform" && $0.imported.contains("Glibc") })
        let offenders = all.filter { file in
            !Self.cFacing.contains(file.module) && !Self.isShim(file.module) && !file.imported.isDisjoint(with: ["Glibc", "Foundation"])
        }
        #expect(offenders.isEmpty, "import Glibc outside Platform and the C-facing modules: \(offenders.map(\.file))")
    }

    @Test func importLinesAreRead() {
        #expect(Self.importedModule("import Glibc") == "Glibc")
        #expect(Self.importedModule("    import Glibc") == "Glibc")
        #expect(Self.importedModule("@preconcurrency import Glibc") == "Glibc")
        #expect(Self.importedModule("import func Glibc.write") == "Glibc")
        #expect(Self.importedModule("import FoundationEssentials") == "FoundationEssentials")
        #expect(Self.importedModule("// import Glibc") == nil)
        #expect(Self.importedModule("let importGlibc = 1") == nil)
    }
}
