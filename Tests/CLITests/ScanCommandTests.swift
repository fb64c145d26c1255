import Codes
import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// The real `kiosk-scanner` binary, run as a user would.
@Suite struct ScanCommandTests {
    let binary = Tool.scannerBinary

    func scan(_ arguments: [String]) throws -> ToolResult {
        try Tool.capture(binary, ["scan"] + arguments)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = try TemporaryDirectory.shared.file("\(UUID().uuidString.prefix(6))-\(name)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func printsZbarimgLinesAndExitsZero() throws {
        let qr = try Barcodes.qr("kiosk line")
        let ean = try Barcodes.zint(.ean13, "590123412345")
        let result = try scan([qr, ean])
        #expect(result.status == 0)
        #expect(result.stdout == "QR-Code:kiosk line\nEAN-13:5901234123457\n")
    }

    /// A GS1 Digital Link QR code drawn by qrencode reads as GS1 data; a broken one stays a URL.
    @Test func aDigitalLinkQRCodeReadsAsGS1Data() throws {
        let link = try Barcodes.qr("https://id.gs1.org/01/09506000134352/10/ABC123?17=261231")
        let broken = try Barcodes.qr("https://example.com/p/01/09506000134353")
        let result = try scan(["--json", link, broken])
        #expect(result.status == 0)
        let objects = try result.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        try #require(objects.count == 2, "\(result.stdout)")
        #expect(objects[0]["content"] as? String == "gs1" && objects[0]["gs1_source"] as? String == "digital-link")
        #expect((objects[0]["gs1"] as? [[String: Any]])?.compactMap { $0["ai"] as? String } == ["01", "10", "17"])
        #expect(objects[0]["aim"] as? String == "]Q1", "the symbol itself is a plain QR code")
        #expect(objects[1]["content"] as? String == "url" && objects[1]["gs1"] == nil)
        #expect((objects[1]["gs1_error"] as? String)?.contains("check digit") == true)
    }

    @Test func jsonLinesCarryTheFileAndTheRead() throws {
        let path = try Barcodes.zint(.code128, "[01]09506000134352[10]B1", gs1: true)
        let result = try scan(["--json", path])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(object["file"] as? String == path)
        #expect(object["aim"] as? String == "]C1")
        #expect(object["content"] as? String == "gs1" && object["gs1_source"] as? String == "element-string")
        #expect((object["gs1"] as? [[String: Any]])?.first?["ai"] as? String == "01")
        #expect(object["immediate"] as? Bool == false)
    }

    @Test func jpegAndPNMFilesAreRead() throws {
        let image = try ImageFile.read(path: Barcodes.qr("jpeg and pnm", moduleSize: 6))
        let jpeg = try write(JPEG.encode(image), "code.jpg")
        var pgm = Array("P5\n# made by a test\n\(image.width) \(image.height)\n255\n".utf8)
        for y in 0..<image.height { for x in 0..<image.width { pgm.append(image[x, y]) } }
        let pgmPath = try write(pgm, "code.pgm")
        let result = try scan([jpeg, pgmPath])
        #expect(result.status == 0)
        #expect(result.stdout == "QR-Code:jpeg and pnm\nQR-Code:jpeg and pnm\n")
    }

    /// Without --engine, scan uses the daemon's default engine, both.
    @Test func theDefaultEngineReadsDataMatrixAztecAndPDF417() throws {
        let files = try [
            Barcodes.zint(.datamatrix, "dm file", scale: 3), Barcodes.zint(.aztec, "aztec file", scale: 3),
            Barcodes.zint(.pdf417, "pdf file", scale: 2),
        ]
        #expect(try scan(["--engine", "zbar"] + files).status == 1, "ZBar alone reads none of them")
        let result = try scan(files)
        #expect(result.status == 0)
        #expect(result.stdout == "DataMatrix:dm file\nAztec:aztec file\nPDF417:pdf file\n")
        let refused = try scan(["--engine", "zbar", "--symbologies", "datamatrix"] + files)
        #expect(refused.status == 2 && refused.stderr.contains("ZBar cannot read datamatrix"))
    }

    /// The symbologies only zxing-cpp 3 reads, each drawn by zint, named as in the config.
    @Test func readsDataBarLimitedMicroQRAndRMQR() throws {
        let files = try [
            Barcodes.zint(.databarLimited, "1234567890128", scale: 3), Barcodes.zint(.microqr, "MQR file", scale: 4),
            Barcodes.zint(.rmqr, "rMQR file", scale: 4),
        ]
        for engine in [[], ["--engine", "both"], ["--engine", "zxing"]] {
            let result = try scan(engine + files)
            #expect(result.status == 0)
            #expect(result.stdout == "DataBar-Ltd:0112345678901286\nMicro-QR:MQR file\nrMQR:rMQR file\n", "\(engine)")
        }
        let chosen = try scan(["--engine", "both", "--symbologies", "microqr"] + files)
        #expect(chosen.stdout == "Micro-QR:MQR file\n")
    }

    @Test func nothingFoundExitsOne() throws {
        let blank = try write(Array("P2 4 2 255\n1 2 3 4 5 6 7 8\n".utf8), "blank.pgm")
        let result = try scan([blank])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test func viewportOptionExcludesCodesOutsideIt() throws {
        let qr = try ImageFile.read(path: Barcodes.qr("corner"))
        let frame = Barcodes.compose(size: Size(width: 640, height: 480), placing: [(qr, Point(x: 0, y: 0))])
        let path = try write(JPEG.encode(frame), "corner.jpg")
        #expect(try scan([path]).status == 0)
        #expect(try scan(["--viewport", "square", path]).status == 1)
        #expect(try scan(["--viewport", "0,0,0.5,0.5", path]).status == 0)
    }

    @Test func symbologiesOptionLimitsWhatIsRead() throws {
        let ean = try Barcodes.zint(.ean13, "590123412345")
        #expect(try scan(["--symbologies", "qr,code128", ean]).status == 1)
        #expect(try scan(["--symbologies", "ean13", ean]).status == 0)
        let bad = try scan(["--symbologies", "qr,nope", ean])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown symbology 'nope'"))
    }

    /// `--preprocessing` chooses the second looks: an EAN-13 held slanted 45° is read by the turned
    /// look, which the default has, and by nothing else. An unknown look is an error.
    @Test func preprocessingOptionChoosesTheSecondLooks() throws {
        let ean = try ImageFile.read(path: Barcodes.zint(.ean13, "590123412345", scale: 1, extra: ["--height=30"]))
        let frame = Barcodes.centred(Barcodes.turned(ean, degrees: 45, scale: 1), in: Size(width: 640, height: 480))
        let pixels = (0..<frame.height).flatMap { y in (0..<frame.width).map { frame[$0, y] } }
        let path = try write(Array("P5 \(frame.width) \(frame.height) 255\n".utf8) + pixels, "slanted.pgm")
        #expect(try scan([path]).stdout == "EAN-13:5901234123457\n")
        #expect(try scan(["--preprocessing", "turned", path]).status == 0)
        #expect(try scan(["--preprocessing", "inverted,second-scale,binarizer", path]).status == 1)
        #expect(try scan(["--preprocessing", "none", path]).status == 1)
        let bad = try scan(["--preprocessing", "turned,sharpen", path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown second look 'sharpen'"))
    }

    /// Corrupt, truncated, empty, huge and missing files each give an error naming the file, exit 2, and no crash.
    @Test func badFilesExitTwoWithTheFileNamed() throws {
        let png = try Array(Data(contentsOf: URL(fileURLWithPath: Barcodes.qr("truncate me"))))
        let jpeg = JPEG.encode(try ImageFile.read(path: Barcodes.qr("truncate me too")))
        var corrupt = png
        for index in stride(from: 60, to: corrupt.count, by: 7) { corrupt[index] ^= 0x5A }
        var hugePNG = Array(png[0..<33])
        hugePNG.replaceSubrange(16..<24, with: [0, 0, 0x9C, 0x40, 0, 0, 0x9C, 0x40])  // 40000 x 40000
        hugePNG.replaceSubrange(29..<33, with: crc32(Array(hugePNG[12..<29])))
        hugePNG += png[33...]
        let files: [(String, [UInt8], String)] = [
            ("empty.png", [], "empty file"),
            ("truncated.png", Array(png.prefix(png.count / 2)), "invalid PNG"),
            ("corrupt.png", corrupt, "invalid PNG"),
            ("truncated.jpg", Array(jpeg.prefix(jpeg.count / 2)), "invalid JPEG"),
            ("huge.pgm", Array("P5 100000 100000 255\n".utf8), "too large"),
            ("huge.png", hugePNG, "too large"),
            ("short.pgm", Array("P5 100 100 255\n".utf8) + [UInt8](repeating: 9, count: 50), "truncated"),
            ("garbage.bin", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }, "not a PNG, JPEG or PNM"),
        ]
        for (name, bytes, reason) in files {
            let path = try write(bytes, name)
            let result = try scan([path])
            #expect(result.status == 2, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(path) && result.stderr.contains(reason), "\(name): \(result.stderr)")
        }
        let missing = try scan(["/nonexistent/code.png"])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/code.png: No such file or directory"))
    }

    @Test func oneBadFileAmongGoodOnesStillPrintsTheGoodReads() throws {
        let good = try Barcodes.qr("still here")
        let bad = try write([1, 2, 3], "bad.png")
        let result = try scan([bad, good])
        #expect(result.status == 2)
        #expect(result.stdout == "QR-Code:still here\n")
    }

    /// The CRC-32 of PNG chunks, big-endian, so the test can forge a header with other dimensions.
    func crc32(_ bytes: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }
}

@Suite struct CheckConfigCommandTests {
    @Test func goodFilePassesAndBadFileNamesLineAndKey() throws {
        let good = try TemporaryDirectory.shared.file("good.conf")
        try "camera:\n  fps: 15\n".write(toFile: good, atomically: true, encoding: .utf8)
        let ok = try Tool.capture(Tool.scannerBinary, ["check-config", good])
        #expect(ok.status == 0 && ok.stdout.contains("OK"))

        let bad = try TemporaryDirectory.shared.file("bad.conf")
        try "camera:\n  fps: 15\nsocket:\n  mode: rw\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let failed = try Tool.capture(Tool.scannerBinary, ["check-config", bad])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("\(bad):4: socket.mode: expected an octal file mode"))
    }

    @Test func shippedConfigPasses() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../etc/kiosk-scanner/kiosk-scanner.conf")
            .standardized.path
        #expect(try Tool.capture(Tool.scannerBinary, ["check-config", shipped]).status == 0)
    }
}
