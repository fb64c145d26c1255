// Builds AAMVA files for tests: the header, a directory with the right offsets, and subfiles.

/// An AAMVA file to build: header numbers and subfiles of (ID, value) elements, in order.
struct AAMVABuilder {
    var version: Int
    var iin = "636000"
    var jurisdictionVersion = 0
    var fileType = "ANSI "
    var subfiles: [(type: String, elements: [(String, String)])]

    init(version: Int, iin: String = "636000", _ subfiles: [(type: String, elements: [(String, String)])]) {
        self.version = version
        self.iin = iin
        self.subfiles = subfiles
    }

    /// The file's text; `offsetError` is added to every offset the directory gives, as some
    /// issuers' encoders got them wrong.
    func text(offsetError: Int = 0) -> String {
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var header = "@\n\u{1E}\r" + fileType + iin + digits(version, 2)
        if version >= 2 { header += digits(jurisdictionVersion, 2) }
        header += digits(subfiles.count, 2)
        let bodies = subfiles.map { subfile in
            subfile.type + subfile.elements.map { $0.0 + $0.1 }.joined(separator: "\n") + "\r"
        }
        var offset = header.utf8.count + 10 * subfiles.count
        var directory = ""
        for (subfile, body) in zip(subfiles, bodies) {
            directory += subfile.type + digits(offset + offsetError, 4) + digits(body.utf8.count, 4)
            offset += body.utf8.count
        }
        return header + directory + bodies.joined()
    }

    func bytes(offsetError: Int = 0) -> [UInt8] { Array(text(offsetError: offsetError).utf8) }
}
