import Codes
import Decoding
import Foundation
import ImageFiles
import Imaging

/// Read rate per corpus set: ours (in process, full viewport) beside zbarimg on the same files.
/// An image is read when a reported text equals the expected one after the same normalisation
/// for every reader (EAN/UPC as 13 digits) and for the expected text, whose file holds control
/// characters raw or as `<GS>`: both sides get them escaped as zxing-cpp's own test runner does.
/// A reported text that is not the expected one counts as other (a misread, another code in the
/// image, or data the corpus writes another way).
struct AccuracyBenchmark {
    let corpus: String

    func run() throws {
        guard FileManager.default.fileExists(atPath: corpus) else {
            print("accuracy: corpus not present at \(corpus): skipped")
            return
        }
        print("accuracy over \(corpus): images read (or codes reported, on falsepositives-*)")
        print("readers: zbar (ours, ZBar alone); zxing (zxing-cpp 3.1.1 alone through its C API: every format but ISBN and")
        print("         the EAN add-ons); zxing+bin (zxing plus its global-histogram binarizer); both (routed: ZBar, zxing-cpp for 2D and")
        print(
            "         for QR and linear codes when ZBar found nothing); both+inv, both+half, both+bin: both plus one second look on frames where the first found"
        )
        print("         nothing (ZBar inverted, ZBar at half size, zxing-cpp's global-histogram binarizer); both+prep: the")
        print("         default (\(Preprocessing.defaults.map(\.rawValue).sorted().joined(separator: ", "))); all+prep: both+prep where zxing-cpp's QR and")
        print("         linear reads always count; zbarimg (ZBar alone); zxing-all (zxing-cpp alone,")
        print("         every format: Benchmarks/zxing-alone.py through the PyPI zxing-cpp 3.1.1 wheel in .build/zxing-anchor, one")
        print("         process per image). 'best single' = the better of zbarimg and zxing-all: the libraries alone")
        print("         Every reader of ours reads any length: the daemon's default length limits (ITF-14 only, Codabar of 6 or more)")
        print("         are a till's policy against misreads, and the itf sets hold short ITFs that zbarimg reads.")
        var all = DecoderConfig()
        all.symbologies = DecoderEngine.both.defaultSymbologies
        all.preprocessing = []
        all.lengths = [:]
        var zbarConfig = DecoderConfig()
        zbarConfig.engine = .zbar
        zbarConfig.symbologies = DecoderEngine.zbar.defaultSymbologies
        zbarConfig.preprocessing = []
        zbarConfig.lengths = [:]
        var zxingConfig = all
        zxingConfig.engine = .zxing
        zxingConfig.symbologies = ZXingDecoder.supported
        func both(_ passes: Set<Preprocessing>) throws -> any Decoder {
            var config = all
            config.preprocessing = passes
            return try RoutedDecoder(config: config, fallback: true)
        }
        var zxingBinarizer = zxingConfig
        zxingBinarizer.preprocessing = [.binarizer]
        let readers: [(String, any Decoder)] = [
            ("zbar", try ZBarDecoder(config: zbarConfig)), ("zxing", try ZXingDecoder(config: zxingConfig)),
            ("zxing+bin", try ZXingDecoder(config: zxingBinarizer)), ("both", try both([])),
            ("both+inv", try both([.inverted])), ("both+half", try both([.secondScale])), ("both+bin", try both([.binarizer])),
            ("both+prep", try both(Preprocessing.defaults)),
            (
                "all+prep",
                try RoutedDecoder(
                    config: {
                        var config = all
                        config.preprocessing = Preprocessing.defaults
                        return config
                    }(), fallback: true, everything: true)
            ),
        ]
        let names = readers.map(\.0) + ["zbarimg", "zxing-all"]
        let widths = names.map { max($0.count + 2, 6) }
        print(pad("set", 18) + pad("images", 7) + zip(names, widths).map { pad($0, $1) }.joined() + "best single")
        var totals = [Int](repeating: 0, count: names.count + 1)
        let zbarimgIndex = names.firstIndex(of: "zbarimg")!
        let zxingAllIndex = names.firstIndex(of: "zxing-all")!
        let bothIndex = names.firstIndex(of: "both+prep")!
        var aborts = 0
        var others = [Int](repeating: 0, count: names.count)
        for set in try FileManager.default.contentsOfDirectory(atPath: corpus).sorted() where !set.hasSuffix(".md") {
            let directory = "\(corpus)/\(set)"
            let images = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".png") }.sorted()
            let falsePositives = set.hasPrefix("falsepositives")
            var counts = [Int](repeating: 0, count: names.count)
            for image in images {
                let path = "\(directory)/\(image)"
                let expected = (try? String(contentsOfFile: path.replacingOccurrences(of: ".png", with: ".txt"), encoding: .utf8)).map(escape)
                let frame = try? ImageFile.read(path: path)
                var results = readers.map { _, reader in
                    ((frame.flatMap { try? reader.symbols(in: $0, viewport: .full) }) ?? []).map { symbol in
                        normalise(Read(symbol: symbol, frame: Size(width: 1, height: 1)).line.drop(while: { $0 != ":" }).dropFirst(), set: set)
                    }
                }
                results.append(zbarimg(path).map { normalise($0.drop(while: { $0 != ":" }).dropFirst(), set: set) })
                let alone = zxingAlone(path)
                if alone == nil { aborts += 1 }
                results.append((alone ?? []).map { normalise(Substring($0), set: set) })
                for (index, texts) in results.enumerated() {
                    counts[index] += falsePositives ? texts.count : (expected.map { texts.contains($0) } ?? false) ? 1 : 0
                    if !falsePositives, let expected { others[index] += texts.filter { $0 != expected }.count }
                }
            }
            let bestSingle = max(counts[zxingAllIndex], counts[zbarimgIndex])
            print(
                pad(set, 18) + pad("\(images.count)", 7) + counts.enumerated().map { pad("\($0.element)", widths[$0.offset]) }.joined()
                    + (falsePositives ? "(reported)" : "\(bestSingle)\(counts[bothIndex] < bestSingle ? "  both+prep below best" : "")"))
            if !falsePositives {
                totals[0] += images.count
                for index in counts.indices { totals[index + 1] += counts[index] }
            }
        }
        print(pad("total", 18) + pad("\(totals[0])", 7) + (1..<totals.count).map { pad("\(totals[$0])", widths[$0 - 1]) }.joined())
        print(pad("other texts", 25) + others.enumerated().map { pad("\($0.element)", widths[$0.offset]) }.joined())
        print("zxing-all failed on \(aborts) images (counted as nothing read)")
    }

    /// zxing-cpp alone with every format, in its own process (the PyPI wheel in a venv that
    /// Benchmarks/run makes, or ZXING_ANCHOR_PYTHON); nil when it failed.
    private func zxingAlone(_ path: String) -> [String]? {
        let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let script = benchmarks.appendingPathComponent("zxing-alone.py").standardized.path
        let python =
            ProcessInfo.processInfo.environment["ZXING_ANCHOR_PYTHON"]
            ?? benchmarks.appendingPathComponent("../.build/zxing-anchor/bin/python3").standardized.path
        guard let (status, data) = output(of: python, [script, path]), status == 0 else { return nil }
        return try? JSONDecoder().decode([String].self, from: data)
    }

    /// zbarimg's `SYMBOLOGY:TEXT` results for one file; a result's text may span lines.
    private func zbarimg(_ path: String) -> [String] {
        // zbarimg's exit status says whether it found anything; the XML says what.
        guard let (_, data) = output(of: "/usr/bin/zbarimg", ["-q", "--xml", path]) else { return [] }
        return XMLSymbols(data).symbols
    }

    /// Runs `executable` and returns its exit status and standard output; nil when it cannot start.
    private func output(of executable: String, _ arguments: [String]) -> (status: Int32, data: Data)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// The corpus's form: EAN/UPC as 13 digits (UPC-E expanded), newlines and GS as <LF> and <GS>.
    private func normalise(_ line: Substring, set: String) -> String {
        var text = String(line)
        let digits = text.allSatisfy(\.isNumber)
        if digits && text.count == 12 { text = "0" + text }
        if digits && text.count == 8 && set.hasPrefix("upce") { text = "0" + expandUPCE(text) }
        return escape(text)
    }

    /// ASCII control characters as `<NAME>`, as zxing-cpp's EscapeNonGraphical writes them.
    private func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 32 || scalar.value == 127 {
                escaped += "<\(Self.controlNames[scalar.value == 127 ? 32 : Int(scalar.value)])>"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static let controlNames = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
        "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US", "DEL",
    ]

    /// UPC-E (number system, six digits, check) to UPC-A.
    private func expandUPCE(_ code: String) -> String {
        let d = Array(code)
        let (system, body, check) = (d[0], Array(d[1...6]), d[7])
        let middle: String
        switch body[5] {
        case "0", "1", "2": middle = "\(body[0])\(body[1])\(body[5])0000\(body[2])\(body[3])\(body[4])"
        case "3": middle = "\(body[0])\(body[1])\(body[2])00000\(body[3])\(body[4])"
        case "4": middle = "\(body[0])\(body[1])\(body[2])\(body[3])00000\(body[4])"
        default: middle = "\(body[0])\(body[1])\(body[2])\(body[3])\(body[4])0000\(body[5])"
        }
        return "\(system)\(middle)\(check)"
    }
}

/// The `<symbol type=...><data>...</data></symbol>` entries of zbarimg's XML output, as
/// `TYPE:TEXT`, so that multi-line data stays one result.
struct XMLSymbols {
    let symbols: [String]

    init(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        var found: [String] = []
        for part in text.components(separatedBy: "<symbol ").dropFirst() {
            guard let type = part.components(separatedBy: "type='").dropFirst().first?.components(separatedBy: "'").first,
                let body = part.components(separatedBy: "<data").dropFirst().first?.components(separatedBy: "</data>").first,
                let start = body.firstIndex(of: ">")
            else { continue }
            var value = String(body[body.index(after: start)...])
            if value.hasPrefix("<![CDATA[") { value = String(value.dropFirst(9).dropLast(3)) }
            found.append("\(type):\(value.replacingOccurrences(of: "]]]]><![CDATA[>", with: "]]>"))")
        }
        symbols = found
    }
}
