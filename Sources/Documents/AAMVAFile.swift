// The structure of an AAMVA file (DL/ID Card Design Standard, Annex D): a header, a directory of
// subfiles (type, offset, length), and subfiles of data elements, each a 3-letter ID and a value,
// LF between them and CR at the end. Offsets count bytes from the compliance indicator.

/// Why an AAMVA document could not be read: what broke, and where.
public struct AAMVAError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One line naming the part (header, directory, subfile, element) and what was wrong with it.
    public let message: String

    public var description: String { message }

    init(_ message: String) { self.message = message }
}

/// One subfile: its type ("DL", "ID", "ZV") and its data elements in the order they came.
struct AAMVASubfile: Equatable, Sendable {
    let type: String
    let elements: [AAMVAElement]
}

/// One data element: a 3-character ID ("DAQ") and its value, padding trimmed.
struct AAMVAElement: Equatable, Sendable {
    let id: String
    let value: String
}

/// The header's numbers and the subfiles, as the bytes hold them, not yet interpreted.
struct AAMVAFile: Equatable, Sendable {
    /// The Issuer Identification Number's six digits.
    let iin: String
    let version: Int
    /// Absent in versions 0 and 1: the jurisdiction version came with the 2003 specification.
    let jurisdictionVersion: Int?
    let subfiles: [AAMVASubfile]

    static let lineFeed: UInt8 = 0x0A
    static let recordSeparator: UInt8 = 0x1E
    static let carriageReturn: UInt8 = 0x0D
    static let fileTypes: [[UInt8]] = [Array("ANSI ".utf8), Array("AAMVA".utf8)]

    /// Where the file type starts: byte 4 after `@`, LF, RS and CR, or wherever the separators end
    /// when a reader or keyboard wedge dropped or doubled them (CR LF for LF is the usual one).
    static func fileTypeStart(_ bytes: [UInt8]) -> Int? {
        guard bytes.first == UInt8(ascii: "@") else { return nil }
        var start = 1
        while start < min(bytes.count, 9), [lineFeed, recordSeparator, carriageReturn].contains(bytes[start]) {
            start += 1
        }
        guard start + 5 <= bytes.count else { return nil }
        return fileTypes.contains(Array(bytes[start..<start + 5])) ? start : nil
    }

    /// Reads the header, the directory and every subfile it lists.
    static func read(_ bytes: [UInt8]) -> Result<AAMVAFile, AAMVAError> {
        var reader = Reader(bytes: bytes)
        return Result { try reader.file() }.mapError { $0 as? AAMVAError ?? AAMVAError("\($0)") }
    }

    /// A cursor over the bytes that throws an `AAMVAError` naming the byte where reading stopped.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func file() throws -> AAMVAFile {
            guard bytes.first == UInt8(ascii: "@") else {
                throw AAMVAError("header: expected the compliance indicator '@' at byte 0")
            }
            guard let typeStart = AAMVAFile.fileTypeStart(bytes) else {
                throw AAMVAError("header: expected 'ANSI ' at byte 4")
            }
            position = typeStart + 5
            // The directory's offsets assume the standard's four bytes before the file type.
            let shift = typeStart - 4
            let iin = try digits(6, "the IIN")
            let version = try number(2, "the AAMVA version")
            let jurisdictionVersion = version >= 2 ? try number(2, "the jurisdiction version") : nil
            let entries = try number(2, "the number of entries")
            guard entries > 0 else { throw AAMVAError("header: the number of entries is 00") }
            var designators: [(type: String, offset: Int?)] = []
            for entry in 1...entries {
                guard position + 10 <= bytes.count else {
                    throw AAMVAError(
                        "subfile directory: entry \(entry) of \(entries) ends past the data (\(bytes.count) bytes)")
                }
                let type = bytes[position..<position + 2]
                guard type.allSatisfy(Self.isIDCharacter) else {
                    throw AAMVAError("subfile directory: entry \(entry) has no subfile type at byte \(position)")
                }
                // Ontario has written 0000 and Alberta letters where the offset goes: nil, and the
                // subfile is searched for.
                let offset = Self.decimal(bytes[position + 2..<position + 6]).flatMap { $0 == 0 ? nil : $0 + shift }
                designators.append((Self.text(type), offset))
                position += 10
            }
            let directoryEnd = position
            return AAMVAFile(
                iin: String(iin), version: version, jurisdictionVersion: jurisdictionVersion,
                subfiles: try designators.map { try subfile($0.type, at: $0.offset, after: directoryEnd) })
        }

        /// The subfile of `type`: where the directory says, a few bytes either side (South Carolina's
        /// version 1 cards point one byte late), or, for an offset of 0000 (Ontario) or letters
        /// (Alberta), the first place after the directory where a line starts with the type.
        func subfile(_ type: String, at offset: Int?, after directoryEnd: Int) throws -> AAMVASubfile {
            let typeBytes = Array(type.utf8)
            let name = "subfile \(type)"
            func starts(at index: Int) -> Bool {
                index >= directoryEnd && index + 2 <= bytes.count && Array(bytes[index..<index + 2]) == typeBytes
            }
            // A subfile follows the directory or the previous subfile's CR (or a CR LF); a Z
            // subfile's elements also start with its type ("ZVZVA01\nZVBX"), so the type after a CR
            // is the best match, then one after a LF, then the type anywhere.
            func follows(_ separators: [UInt8]) -> (Int) -> Bool {
                { index in
                    starts(at: index) && (index == directoryEnd || separators.contains(bytes[index - 1]))
                }
            }
            var start: Int?
            if let offset {
                guard offset < bytes.count else {
                    throw AAMVAError(
                        "\(name): offset \(Self.fourDigits(offset)) beyond the data (\(bytes.count) bytes)")
                }
                let nearest = ([0] + (1...8).flatMap { [-$0, $0] }).map { offset + $0 }
                start =
                    nearest.first(where: follows([carriageReturn])) ?? nearest.first(where: follows([lineFeed]))
                    ?? nearest.first(where: starts)
            } else {
                start = (directoryEnd..<bytes.count).first(where: follows([carriageReturn, lineFeed]))
            }
            guard let start else {
                let place = offset.map { "at offset \(Self.fourDigits($0)) or near it" } ?? "after the directory"
                throw AAMVAError("\(name): no '\(type)' \(place)")
            }
            guard let end = bytes[(start + 2)...].firstIndex(of: carriageReturn) else {
                throw AAMVAError(
                    "\(name): no segment terminator (CR) after byte \(start): the data ends at byte \(bytes.count)")
            }
            var elements: [AAMVAElement] = []
            var lineStart = start + 2
            for lineEnd in (start + 2...end) where lineEnd == end || bytes[lineEnd] == lineFeed {
                defer { lineStart = lineEnd + 1 }
                let line = bytes[lineStart..<lineEnd]
                guard !line.isEmpty else { continue }
                guard line.count >= 3, line.prefix(3).allSatisfy(Self.isIDCharacter) else {
                    throw AAMVAError("\(name): no element ID at byte \(lineStart): '\(Self.text(line.prefix(8)))'")
                }
                elements.append(AAMVAElement(id: Self.text(line.prefix(3)), value: Self.trimmed(line.dropFirst(3))))
            }
            return AAMVASubfile(type: type, elements: elements)
        }

        mutating func digits(_ count: Int, _ what: String) throws -> Substring {
            guard position + count <= bytes.count else {
                throw AAMVAError("header: the data ends at byte \(bytes.count), before \(what) at byte \(position)")
            }
            let field = bytes[position..<position + count]
            guard Self.decimal(field) != nil else {
                throw AAMVAError("header: expected \(what) (\(count) digits) at byte \(position): '\(Self.text(field))'")
            }
            position += count
            return Substring(Self.text(field))
        }

        mutating func number(_ count: Int, _ what: String) throws -> Int {
            Self.decimal(try digits(count, what).utf8) ?? 0
        }

        /// The value of a few ASCII digits; nil if any byte is not one (four digits cannot overflow).
        static func decimal<Digits: Collection<UInt8>>(_ field: Digits) -> Int? {
            guard !field.isEmpty, field.count <= 9, field.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return field.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }

        static func isIDCharacter(_ byte: UInt8) -> Bool {
            (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
        }

        static func fourDigits(_ value: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }

        /// Bytes as text, one character per byte (ISO 8859-1): the standard's character set is
        /// ASCII, and no byte can fail to decode.
        static func text<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
            String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        }

        /// A value without the spaces that pad fixed-length fields (DAK's "232690000  ").
        static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
            let isPadding = { (byte: UInt8) in byte == 0x20 || byte == 0x00 }
            guard let first = bytes.firstIndex(where: { !isPadding($0) }),
                let last = bytes.lastIndex(where: { !isPadding($0) })
            else { return "" }
            return text(bytes[first...last])
        }
    }
}
