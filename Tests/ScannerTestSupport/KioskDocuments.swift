import Codes
import Documents
import Foundation
import ImageFiles
import Imaging

/// Made-up kiosk documents (docs/documents.md) drawn by zint, for the tests that put them
/// through the daemon and `scan`: the licence of the AAMVA standard's example and an IATA pass.
public enum KioskDocuments {
    /// The AAMVA DL/ID standard's 2020 example (a made-up Virginia licence, expired in 2024), as
    /// `aamvaStandardExample2020` in DocumentsTests.
    public static let licence =
        "@\n\u{1E}\rANSI 636000100102DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\n"
        + "DADJOHN\nDDGN\nDCUJR\nDCAD\nDCBK\nDCDPH\nDBD06062019\nDBB06061986\nDBA12102024\nDBC1\nDAU068 in\n"
        + "DAYBRO\nDAG2300 WEST BROAD STREET\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCF2424244747474786102204\n"
        + "DCGUSA\nDCK123456789\nDDAF\nDDB06062018\nDDC06062020\nDDD1\rZVZVA01\r"

    /// Pieces of the licence's raw data that none of the fields consumers get by default holds: the
    /// customer ID, the names, the street, the city, the document discriminator.
    public static let licenceSecrets = ["T64235789", "SAMPLE", "MICHAEL", "2300 WEST BROAD STREET", "RICHMOND", "2424244747474786102204"]

    /// A one-leg pass, the mandatory items only (as in the BCBP tests): Luc Desmarais, AC 834 YUL to FRA.
    public static let boardingPass = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100"

    /// The fields consumers get of each by default (`DocumentsConfig`).
    public static let idFields: Set = ["issuer", "age_over_18", "age_over_21", "expired"]
    public static let boardingPassFields: Set = ["passenger_name", "passenger_family_name", "passenger_given_name", "legs_count", "legs"]

    /// The licence as a PDF417 PNG (zint's binary mode: the data has LF, RS and CR in it).
    public static func licenceImage(scale: Int = 1) throws -> String {
        try Barcodes.zint(.pdf417, licence, scale: scale, extra: ["--binary"])
    }

    /// The pass as an Aztec PNG.
    public static func boardingPassImage(scale: Int = 3) throws -> String {
        try Barcodes.zint(.aztec, boardingPass, scale: scale)
    }

    /// A replay directory: the licence, then the pass, each centred on 640x480 for `hold` frames
    /// (the engine `both` gives zxing-cpp every other frame) with `blanks` blank frames after it, so
    /// that each is read again on every loop.
    public static func replayDirectory(hold: Int = 4, blanks: Int = 20) throws -> String {
        let directory = try TemporaryDirectory.shared.directory("documents-replay")
        let size = Size(width: 640, height: 480)
        let blank = Frame(width: size.width, height: size.height, pixels: [UInt8](repeating: 220, count: size.width * size.height))
        var index = 0
        for image in [try licenceImage(), try boardingPassImage()] {
            let frames = [Frame](repeating: Barcodes.centred(try ImageFile.read(path: image), in: size), count: hold)
            for frame in frames + [Frame](repeating: blank, count: blanks) {
                index += 1
                try Barcodes.pgm(frame).write(to: URL(fileURLWithPath: String(format: "%@/%04d.pgm", directory, index)))
            }
        }
        return directory
    }
}
