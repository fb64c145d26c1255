import Codes

/// Codes the decoder tests have zint draw: the symbology, the data zint is given, and the text a
/// decoder must read back (with the check digit zint adds, and a DataBar's GTIN as AI 01).
enum DrawnCodes {
    /// Every 1D symbology and QR that the scanner promises, UPC-A and UPC-E twice.
    static let promised: [(Symbology, String, String)] = [
        (.ean13, "590123412345", "5901234123457"),
        (.ean8, "9638507", "96385074"),
        (.upca, "01234567890", "012345678905"),
        (.upca, "72527273070", "725272730706"),
        (.upce, "0123456", "01234565"),
        (.upce, "0654321", "06543217"),
        (.itf, "12345678901231", "12345678901231"),
        (.code39, "KIOSK-42", "KIOSK-42"),
        (.code93, "Kiosk 93", "Kiosk 93"),
        (.code128, "Scanner #128/x", "Scanner #128/x"),
        (.codabar, "A40156B", "A40156B"),
        (.databar, "0950600013435", "0109506000134352"),
        (.qr, "Hello kiosk", "Hello kiosk"),
    ]

    /// EAN and UPC: the symbologies whose text must not depend on the library that reads them.
    static let retailSymbologies: Set<Symbology> = [.ean13, .ean8, .upca, .upce]

    /// The promised codes of the retail symbologies.
    static let retail = promised.filter { retailSymbologies.contains($0.0) }
}
