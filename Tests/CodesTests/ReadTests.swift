import Codes
import Foundation
import Imaging
import ScannerTestSupport
import Testing

@Suite struct ReadTests {
    static let box = Corners([Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 9), Point(x: 0, y: 9)])

    @Test(arguments: [
        (Symbology.ean13, false, "]E0"), (.ean8, false, "]E4"), (.upca, false, "]E0"), (.upce, false, "]E0"),
        (.code128, false, "]C0"), (.code128, true, "]C1"), (.code39, false, "]A0"), (.code93, false, "]G0"),
        (.codabar, false, "]F0"), (.itf, false, "]I0"), (.databar, true, "]e0"), (.qr, false, "]Q1"), (.qr, true, "]Q3"),
        (.datamatrix, false, "]d1"), (.datamatrix, true, "]d2"), (.pdf417, false, "]L2"), (.aztec, false, "]z0"),
    ])
    func aimIdentifiers(symbology: Symbology, gs1: Bool, aim: String) {
        #expect(symbology.aimIdentifier(gs1: gs1) == aim)
    }

    @Test func digitOnlySymbologiesAreImmediate() {
        let immediate = Symbology.allCases.filter(\.holdsDigitsOnly)
        #expect(Set(immediate).isSuperset(of: [.ean13, .ean8, .upca, .upce, .itf]))
        #expect(!immediate.contains(.qr) && !immediate.contains(.code128) && !immediate.contains(.code39))
        #expect(Read.sample(.ean13, "5901234123457").immediate)
        #expect(!Read.sample(.qr, "5901234123457").immediate)
    }

    /// A read says whether its symbology has a check a misread fails, and old JSON without the key still decodes.
    @Test func aReadSaysWhetherItsSymbologyChecksItself() throws {
        let unchecked = Symbology.allCases.filter { !$0.hasMandatoryCheck }
        #expect(Set(unchecked) == [.itf, .code39, .codabar, .ean2])
        #expect(Read.sample(.ean13, "5901234123457").checked == true)
        #expect(Read.sample(.itf, "12345670").checked == false)
        let json = try JSONEncoder.forEvents().encode(Read.sample(.codabar, "A123B"))
        #expect(String(decoding: json, as: UTF8.self).contains(#""checked":false"#))
        var old = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        old["checked"] = nil
        let decoded = try JSONDecoder.forEvents().decode(Read.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(decoded.checked == nil && decoded.text == "A123B")
    }

    @Test(arguments: [
        ("https://example.com/a?b=c", ContentType.url), ("HTTP://EXAMPLE.COM", .url), ("www.example.org", .url),
        ("mailto:till@example.com", .email), ("MATMSG:TO:a@b.cd;;", .email), ("till@example.com", .email),
        ("tel:+441234567", .tel), ("SMSTO:+4412:hi", .sms), ("sms:+4412", .sms), ("geo:51.5,-0.12", .geo),
        ("WIFI:T:WPA;S:Shop;P:secret;;", .wifi), ("MECARD:N:Doe,Jo;;", .contact),
        ("BEGIN:VCARD\nVERSION:3.0\nEND:VCARD", .contact), ("hello world", .plain), ("a@b", .plain), ("x @y.com", .plain),
    ])
    func classification(text: String, type: ContentType) {
        #expect(ContentType.classify(text: text, isGS1: false) == type)
    }

    @Test func gs1ReadsAreParsedAndClassified() {
        let read = Read.sample(.code128, "010950600013435217261231", gs1: true)
        #expect(read.content == .gs1)
        #expect(read.gs1?.map(\.ai) == ["01", "17"])
        #expect(read.gs1Error == nil)
        let broken = Read.sample(.code128, "0109506000134353", gs1: true)
        #expect(broken.gs1 == nil)
        #expect(broken.gs1Error?.contains("check digit") == true)
    }

    /// Bytes that are not UTF-8 still give text when they are Shift_JIS or ISO-8859-1, told apart
    /// as zxing-cpp does; binary data gives none.
    @Test func textInOtherCharacterSetsIsGuessedAsZXingCppDoes() {
        func read(_ bytes: [UInt8]) -> Read { Read(symbol: Symbol(symbology: .qr, bytes: bytes, corners: Self.box), frame: Size(width: 10, height: 10)) }
        // テスト in Shift_JIS, then a backslash, which CP932 keeps (glibc's SHIFT_JIS gives a yen sign).
        #expect(read([0x83, 0x65, 0x83, 0x58, 0x83, 0x67, 0x5C]).text == "テスト\\")
        #expect(read([0x93, 0x8C, 0x8B, 0x9E, 0x89, 0x77]).text == "東京駅")
        #expect(read([0x63, 0x61, 0x66, 0xE9, 0x0D, 0x0A]).text == "café\r\n")
        #expect(read([0x63, 0x61, 0x66, 0xE9]).content == .plain)
        #expect(read([0xFF, 0xFE, 0x00, 0x80]).text == nil)
        #expect(read([0x41, 0xE9, 0x1D]).content == .binary)
    }

    @Test func lineIsZbarimgStyle() {
        #expect(Read.sample(.ean13, "5901234123457").line == "EAN-13:5901234123457")
        let latin = Read(symbol: Symbol(symbology: .qr, bytes: [0x41, 0xE9], corners: Self.box), frame: Size(width: 10, height: 10))
        #expect(latin.line == "QR-Code:Aé")
    }
}
