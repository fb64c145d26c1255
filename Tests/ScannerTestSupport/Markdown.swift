import Foundation

/// The project's own Markdown pages, for tests that hold their examples to what the code does.
public enum Markdown {
    /// The code blocks in `language` (```yaml, ```python) of the part of `page` (a path from the
    /// package root, such as README.md) that starts at the first line holding `heading` and ends at
    /// the next `## ` heading.
    public static func codeBlocks(_ language: String, in page: String, after heading: String) throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        let text = try String(contentsOfFile: root.appendingPathComponent(page).path, encoding: .utf8)
        guard let start = text.components(separatedBy: heading).dropFirst().first else { return [] }
        let part = start.components(separatedBy: "\n## ").first ?? start
        return part.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
    }
}
