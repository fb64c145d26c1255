import Foundation
import ScannerTestSupport
import Testing

/// The pages hold together: the README stays a front door, every link lands on a file and a
/// heading, and the architecture page names the modules Package.swift has.
@Suite struct DocsTests {
    /// The pages a reader follows links through: the front door, the guides beside it, and docs/.
    static let pages: [String] =
        ["README.md", "BENCHMARKS.md", "hardware.md", "FUZZING.md", "packaging/README.md", "Benchmarks/README.md"]
        + ((try? FileManager.default.contentsOfDirectory(atPath: Markdown.root.appendingPathComponent("docs").path)) ?? [])
        .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    @Test func theReadmeIsAFrontDoor() throws {
        let lines = try Markdown.text(of: "README.md").split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines < 250, "README.md has \(lines) lines: move reference into docs/")
    }

    /// The first config a newcomer copies is one the daemon takes as it is.
    @Test func theReadmesFirstConfigChecks() throws {
        let config = try #require(try Markdown.codeBlocks("yaml", in: "README.md", after: "## A first config").first)
        let path = try TemporaryDirectory.shared.file("readme-\(UUID().uuidString.prefix(8)).conf")
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try Tool.capture(Tool.scannerBinary, ["check-config", path])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stdout)\(result.stderr)")
    }

    /// docs/ is found, so the link test below covers its pages.
    @Test func theDocsPagesAreFound() {
        #expect(Self.pages.contains("docs/architecture.md") && Self.pages.contains("docs/socket-protocol.md"))
    }

    /// Relative links name a file that exists, and an `#anchor` (on the page itself or on another
    /// .md page) a heading there, as GitHub makes anchors. Links off the site are not followed.
    @Test(arguments: pages) func everyLinkLands(page: String) throws {
        for link in try Markdown.links(in: page) where !["http://", "https://", "mailto:"].contains(where: link.hasPrefix) {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target = parts[0].isEmpty ? page : Markdown.resolve(parts[0], from: page)
            guard FileManager.default.fileExists(atPath: Markdown.root.appendingPathComponent(target).path) else {
                Issue.record("\(page): (\(link)): there is no \(target)")
                continue
            }
            if parts.count == 2, target.hasSuffix(".md") {
                #expect(try Markdown.anchors(in: target).contains(parts[1]), "\(page): (\(link)): \(target) has no heading with that anchor")
            }
        }
    }

    /// The modules docs/architecture.md lists are the package's own: every target but the tests',
    /// the benchmarks' and the fuzzers'.
    @Test func theArchitecturePageListsEveryModule() throws {
        let listed = try Markdown.tableRows(in: "docs/architecture.md", under: "## Modules").compactMap { row in
            row.first?.firstMatch(of: #/^`([^`]+)`/#).map { String($0.output.1) }
        }
        let declared = Self.modules(of: try Markdown.text(of: "Package.swift"))
        #expect(listed.count == Set(listed).count, "a module listed twice: \(listed)")
        #expect(Set(listed).subtracting(declared).isEmpty, "in docs/architecture.md, not in Package.swift: \(Set(listed).subtracting(declared).sorted())")
        #expect(declared.subtracting(listed).isEmpty, "in Package.swift, not in docs/architecture.md: \(declared.subtracting(listed).sorted())")
    }

    /// The names of the `.target`, `.systemLibrary` and `.executableTarget` declarations of a
    /// manifest whose path is not under Benchmarks/, Tests/ or Fuzz/.
    static func modules(of manifest: String) -> Set<String> {
        // Each declaration runs to the next one; the fuzz targets, named by a variable, are skipped.
        let starts = manifest.matches(of: #/\.(?:target|systemLibrary|executableTarget|testTarget)\(/#).map(\.range.lowerBound)
        let declarations = zip(starts, starts.dropFirst().map { $0 } + [manifest.endIndex]).map { manifest[$0..<$1] }
        return Set(
            declarations.compactMap { declaration -> String? in
                guard let name = declaration.firstMatch(of: #/^\.(target|systemLibrary|executableTarget)\(\s*name:\s*"([^"]+)"/#),
                    declaration.firstMatch(of: #/path:\s*"(Benchmarks|Tests|Fuzz)\//#) == nil
                else { return nil }
                return String(name.output.2)
            })
    }
}
