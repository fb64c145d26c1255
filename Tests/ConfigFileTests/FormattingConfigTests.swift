import Codes
import ConfigFile
import Foundation
import Imaging
import ReadPipeline
import ScannerTestSupport
import Testing

/// The `gtin`, `rules` and `unmatched` keys of the socket and of each output, and the `pack` section.
@Suite struct FormattingConfigTests {
    @Test func readsGTINOptionsRulesAndPack() throws {
        let config = try ConfigFile.parse(
            """
            pack:
              merge: true
              window: 0.25
              prefer: linear
            socket:
              format: plain
              gtin:
                upca: 13
                upce: 12
                ean8: 14
                check_digit: strip
                digital_link: element-string
              rules:
                - when: { symbology: [upce, upca], length: [11, 13] }
                  do: [strip_leading: 1]
                - when: { ai: "01" }
                  do: [take_ai: "01"]
                - when: { symbology: pdf417, prefix: "@", regex: "ANSI \\\\d{6}" }
                  do: drop
                - when: { length: 5 }
                  do:
                    - pad: { length: 8, with: " ", side: right }
                    - replace: { pattern: "(A)(B)", with: "$2$1" }
                    - prefix: "<STX>"
                    - suffix: "\\\\r"
                    - upper
                    - strip_trailing: 2
              unmatched: drop
            outputs:
              - type: serial
                device: /dev/ttyS0
                rules:
                  - do: [pad: 14]
            """, file: "f.conf")
        #expect(config.pipeline.pack.merge && config.pipeline.pack.windowSeconds == 0.25 && config.pipeline.pack.prefer == .linear)
        let formatting = config.socket.formatting
        #expect(formatting.gtin.upca == .ean13 && formatting.gtin.upce == .upca && formatting.gtin.ean8 == .gtin14)
        #expect(!formatting.gtin.checkDigit && formatting.gtin.digitalLink == .elementString)
        #expect(formatting.unmatched == .drop)
        try #require(formatting.rules.count == 4)
        #expect(formatting.rules[0].criteria.symbologies == [.upce, .upca])
        #expect(formatting.rules[0].criteria.minLength == 11 && formatting.rules[0].criteria.maxLength == 13)
        #expect(formatting.rules[0].actions == [.stripLeading(1)])
        #expect(formatting.rules[1].criteria.ai == "01" && formatting.rules[1].actions == [.takeAI("01")])
        #expect(formatting.rules[2].criteria.prefix == "@" && formatting.rules[2].criteria.pattern == "ANSI \\d{6}")
        #expect(formatting.rules[2].actions == [.drop])
        #expect(formatting.rules[3].criteria.minLength == 5 && formatting.rules[3].criteria.maxLength == 5)
        #expect(
            formatting.rules[3].actions == [
                .pad(length: 8, with: " ", left: false), .replace(pattern: "(A)(B)", with: "$2$1"), .prefix([0x02]), .suffix([0x0D]), .upperCase,
                .stripTrailing(2),
            ])
        #expect(config.outputs[0].format.formatting.rules.first?.actions == [.pad(length: 14, with: "0", left: true)])
        #expect(config.outputs[0].format.formatting.rules.first?.criteria == FormatRule.Criteria(), "no when: every code")
        // An empty rule list does not end the section: the keys after it are still read.
        #expect(try ConfigFile.parse("socket:\n  rules:\n  unmatched: drop\n", file: "r.conf").socket.formatting.unmatched == .drop)
        let defaults = try ConfigFile.parse("", file: "e.conf")
        #expect(defaults.socket.formatting.isIdentity && defaults.pipeline.pack == PackConfig())
    }

    /// Each bad file names the line and the key that is wrong.
    @Test(arguments: BadConfig.formatting) func errorsNameLineAndKey(_ file: BadConfig) { file.expectRefused() }

    /// docs/pos-data.md's ten examples, each as a serial output's keys: they parse, and do what
    /// their line on that page says.
    @Test func thePOSDataExamplesParseAndDoWhatTheySay() throws {
        let blocks = try Markdown.codeBlocks("yaml", in: "docs/pos-data.md", after: "## Ten examples")
        try #require(blocks.count == 10)
        var formats: [OutputFormat] = []
        for block in blocks {
            // Re-indent under an output, keeping each block's own nesting.
            let indent = block.split(separator: "\n").first!.prefix { $0 == " " }.count
            let lines = block.split(separator: "\n").map { "    " + $0.dropFirst(indent) }
            let text = "outputs:\n  - type: serial\n    device: /dev/ttyS0\n    terminator: none\n" + lines.joined(separator: "\n") + "\n"
            var format = try ConfigFile.parse(text, file: "docs/pos-data.md").outputs[0].format
            format.terminator = .none
            formats.append(format)
        }
        func sent(_ example: Int, _ symbology: Symbology, _ text: String, gs1: Bool = false) -> String? {
            let read = Read(
                symbol: Symbol(
                    symbology: symbology, bytes: Array(text.utf8), isGS1: gs1,
                    corners: Corners([Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)])),
                frame: Size(width: 1, height: 1))
            return formats[example - 1].bytes(for: read).map { String(decoding: $0, as: UTF8.self) }
        }
        let link = "https://id.gs1.org/01/09506000134352/10/ABC123"
        #expect(sent(1, .datamatrix, "0109506000134352\u{1D}10XYZ", gs1: true) == "09506000134352")
        #expect(sent(1, .qr, link) == "09506000134352")
        #expect(sent(2, .upce, "01234565") == "1234565")
        #expect(sent(3, .pdf417, "@\n\u{1E}\rANSI 636014080002DL00410288ZC") == nil)
        #expect(sent(3, .pdf417, "shipping label") == "shipping label")
        #expect(sent(4, .upca, "012345678905") == "0012345678905" && sent(4, .upce, "01234565") == "0012345000065")
        #expect(sent(4, .ean8, "96385074") == "0000096385074")
        #expect(sent(5, .ean8, "96385074") == "00000096385074" && sent(5, .code128, "0109506000134352", gs1: true) == "09506000134352")
        #expect(sent(6, .qr, link) == "]Q3010950600013435210ABC123")
        #expect(sent(7, .qr, "https://shop.example/promo") == nil && sent(7, .ean13, "4006381333931") == "4006381333931")
        #expect(sent(7, .qr, link) == link)
        #expect(sent(8, .ean13, "2012345012349") == "2012345" && sent(8, .ean13, "4006381333931") == "4006381333931")
        #expect(sent(9, .code128, "abc-123-45") == "ABC12345")
        #expect(sent(10, .code39, "LOY123") == "\u{02}L0000000123\u{03}" && sent(10, .ean13, "4006381333931") == "400638133393")
    }
}
