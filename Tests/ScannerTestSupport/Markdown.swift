import Foundation

/// The project's own Markdown pages, for tests that hold their examples, links and lists to what
/// the code and the tree are.
public enum Markdown {
    /// The package root: pages are named by their path from here (README.md, docs/outputs.md).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// The text of `page`, a path from the package root.
    public static func text(of page: String) throws -> String {
        try String(contentsOfFile: root.appendingPathComponent(page).path, encoding: .utf8)
    }

    /// The code blocks in `language` (```yaml, ```python) of the part of `page` (a path from the
    /// package root, such as README.md) that starts at the first line holding `heading` and ends at
    /// the next `## ` heading.
    public static func codeBlocks(_ language: String, in page: String, after heading: String) throws -> [String] {
        let text = try text(of: page)
        guard let start = text.components(separatedBy: heading).dropFirst().first else { return [] }
        let part = start.components(separatedBy: "\n## ").first ?? start
        return part.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
    }

    /// The lines of `page` outside fenced code blocks (which may be indented, in a list item).
    static func proseLines(_ text: String) -> [Substring] {
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                inFence.toggle()
            } else if !inFence {
                lines.append(line)
            }
        }
        return lines
    }

    /// The targets of the inline links and images of `page` (`[text](target)`, `![alt](target)`),
    /// in order, leaving out code blocks and code spans, where brackets are not links.
    public static func links(in page: String) throws -> [String] {
        proseLines(try text(of: page)).flatMap { line in
            line.replacing(#/`[^`]*`/#, with: "").matches(of: #/!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]+)\)/#).map { String($0.output.1) }
        }
    }

    /// The anchors GitHub gives the headings of `page`, as `#anchor` links name them: the
    /// heading's text lower-cased, punctuation other than `-` and `_` dropped, each space a `-`;
    /// a repeated one gets `-1`, `-2`...
    public static func anchors(in page: String) throws -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines(try text(of: page)) {
            guard let heading = line.firstMatch(of: #/^#{1,6}[ \t]+(.*?)[ \t#]*$/#) else { continue }
            // The text as rendered: a link's text without its target, code and emphasis without their marks.
            let rendered = heading.output.1.replacing(#/\[([^\]]*)\]\([^)]*\)/#) { $0.output.1 }.filter { $0 != "`" && $0 != "*" }
            let slug = String(
                rendered.lowercased().compactMap { character -> Character? in
                    if character == " " { return "-" }
                    return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
                })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The path from the package root that `link` (relative, without its `#anchor`) on `page` names.
    public static func resolve(_ link: String, from page: String) -> String {
        var parts = page.split(separator: "/").dropLast().map(String.init)
        for part in link.split(separator: "/").map(String.init) {
            switch part {
            case ".": continue
            case "..": if parts.popLast() == nil { parts.append("..") }
            default: parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    /// The body rows of the tables in the part of `page` that starts at the line `heading` and ends
    /// at the next heading of any level, each row as its cells, trimmed (header rows left out).
    public static func tableRows(in page: String, under heading: String) throws -> [[String]] {
        let lines = proseLines(try text(of: page))
        guard let start = lines.firstIndex(where: { $0 == heading }) else { return [] }
        let rows = lines[(start + 1)...].prefix { !$0.hasPrefix("#") }.filter { $0.hasPrefix("|") }.map { row in
            row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let isSeparator = { (row: [String]) in row.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 == "-" || $0 == ":" } } }
        return rows.indices.filter { !isSeparator(rows[$0]) && !($0 + 1 < rows.count && isSeparator(rows[$0 + 1])) }.map { rows[$0] }
    }
}
