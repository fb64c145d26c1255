import ArgumentParser
import Codes
import ConfigFile
import Daemon
import Decoding
import FoundationEssentials
import ImageFiles
import Imaging
import Platform
import ReadPipeline
import SystemPackage

/// `kiosk-scanner scan FILE...`: decodes image files the way the daemon decodes frames.
struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode barcodes in PNG, JPEG and PNM files.",
        discussion: """
            Prints one SYMBOLOGY:TEXT line per code (as zbarimg does), or one JSON object per line with --json.
            Codes of one pack (the same GTIN) in one file are one read, as in the daemon. With --config, the
            file's pack settings apply, and its socket formatting (gtin, rules): the text printed, or
            "formatted" in JSON; a code a rule sends as nothing is not printed.
            Exit status: 0 when a code was found, 1 when none was, 2 when a file could not be read.
            """
    )

    @Argument(help: "Image files (PNG, JPEG, PGM/PPM/PBM).")
    var files: [String]

    @Flag(help: "Print one JSON object per code.")
    var json = false

    @Option(help: "Region decoded: full, square, square:FRACTION or X,Y,WIDTH,HEIGHT (normalised).")
    var viewport = "full"

    @Option(
        help:
            "Decoder: zbar, zxing, or both (ZBar and zxing-cpp; zxing-cpp alone reads pdf417, datamatrix, aztec, databar-ltd, microqr, rmqr). Default: the daemon's, \(DecoderEngine.standard.rawValue)."
    )
    var engine: String = DecoderEngine.standard.rawValue

    @Option(
        help:
            "Comma-separated symbologies to read (default for zbar: \(Symbology.zbarDefaults.map(\.rawValue).joined(separator: ",")); engine both adds pdf417,datamatrix,aztec,databar-ltd,microqr,rmqr; zxing reads no isbn or ean add-ons)."
    )
    var symbologies: String?

    @Option(
        help:
            "Comma-separated second looks on an image where the first pass found nothing (\(Preprocessing.allCases.map(\.rawValue).joined(separator: ", "))), or none. Default: the daemon's."
    )
    var preprocessing: String?

    @Option(help: "A config file whose pack settings and socket formatting (gtin, rules) apply.")
    var config: String?

    func run() throws {
        let region: Viewport
        var decoderConfig = DecoderConfig()
        var settings = ScannerConfig()
        do {
            if let config { settings = try ConfigFile.load(path: config) }
            region = try Viewport(parsing: viewport)
            guard let chosen = DecoderEngine(rawValue: engine) else { throw ValidationError("unknown engine '\(engine)' (zbar, zxing, both)") }
            decoderConfig.engine = chosen
            if let symbologies {
                decoderConfig.symbologies = try Self.parseSymbologies(symbologies)
            } else {
                decoderConfig.symbologies = chosen.defaultSymbologies
            }
            if let preprocessing { decoderConfig.preprocessing = try Self.parsePreprocessing(preprocessing) }
        } catch {
            Self.fail("\(error)")
            throw ExitCode(2)
        }
        let decoder: any Decoder
        do {
            decoder = try Decoders.make(decoderConfig)
        } catch {
            Self.fail("\(error)")
            throw ExitCode(2)
        }
        let encoder = JSONEncoder.forEvents()
        var found = false
        var failed = false
        for file in files {
            do {
                let image = try ImageFile.read(path: file)
                let (frame, factor) = ImageFile.boundedForDecoding(image)
                if factor > 1 {
                    Self.fail(
                        "\(file): \(image.width)x\(image.height) scaled down \(factor) times to \(frame.width)x\(frame.height) (scan decodes at most \(ImageFile.maxDecodePixels / 1_000_000) Mpixel)"
                    )
                }
                var reads: [Read] = []
                for var symbol in try decoder.symbols(in: frame, viewport: region) {
                    found = true
                    // Corners in the file's own pixels, whatever size it was decoded at.
                    symbol.corners.points = symbol.corners.points.map { Point(x: $0.x * factor, y: $0.y * factor) }
                    var read = Read(symbol: symbol, frame: image.size)
                    read.readDocument(settings.pipeline.documents, today: .today())
                    reads.append(read)
                }
                // One file is one frame: its codes are seen together.
                var pack = PackMerger(config: settings.pipeline.pack)
                let formatting = settings.socket.formatting
                for read in pack.add(reads, at: 0) + pack.flush() {
                    guard let shown = formatting.shownText(for: read) else { continue }
                    let formatted = formatting.isIdentity ? nil : shown
                    let line =
                        json
                        ? String(decoding: try encoder.encode(FileRead(file: file, read: read, formatted: formatted)), as: UTF8.self)
                        : "\(read.symbology):\(shown)"
                    print(Self.forTerminal(line, json: json))
                }
            } catch {
                failed = true
                Self.fail("\(error)")
            }
        }
        if failed { throw ExitCode(2) }
        if !found { throw ExitCode(1) }
    }

    static func parseSymbologies(_ list: String) throws -> Set<Symbology> {
        var chosen: Set<Symbology> = []
        for name in list.split(separator: ",") {
            guard let symbology = Symbology(name: name.trimmingWhitespace()) else {
                throw ValidationError("unknown symbology '\(name)' (known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            chosen.insert(symbology)
        }
        return chosen
    }

    static func parsePreprocessing(_ list: String) throws -> Set<Preprocessing> {
        guard list.trimmingWhitespace() != "none" else { return [] }
        return try Set(
            list.split(separator: ",").map { name in
                guard let pass = Preprocessing(rawValue: String(name.trimmingWhitespace())) else {
                    throw ValidationError("unknown second look '\(name)' (known: \(Preprocessing.allCases.map(\.rawValue).joined(separator: ", ")), or none)")
                }
                return pass
            })
    }

    /// `line` as standard output may show it: on a terminal, with control characters escaped
    /// (`\r`, `\x1b`), as `ls` does, so that a code cannot move the cursor, clear the screen or
    /// retitle the window; for a pipe or a file, as it is. A JSON line stays JSON: JSONEncoder
    /// escapes C0 but writes DEL and C1 (U+009B is CSI) as they are, so those become `\u007f`.
    static func forTerminal(_ line: String, json: Bool) -> String {
        guard FileDescriptor.standardOutput.isTerminal else { return line }
        guard json else { return ControlCharacters.escape.apply(to: line) }
        var escaped = ""
        for scalar in line.unicodeScalars {
            if ControlCharacters.isControl(scalar) {
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func fail(_ message: String) {
        writeLine("kiosk-scanner: \(message)", to: .standardError)
    }
}

/// A read with the file it came from, for `scan --json`.
private struct FileRead: Encodable {
    let file: String
    let read: Read
    let formatted: String?

    enum CodingKeys: String, CodingKey { case file, formatted }

    func encode(to encoder: any Encoder) throws {
        try read.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encodeIfPresent(formatted, forKey: .formatted)
    }
}
