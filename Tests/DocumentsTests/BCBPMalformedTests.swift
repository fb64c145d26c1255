import Documents
import ScannerTestSupport
import Testing

/// Truncated, damaged and foreign texts: an error that names the field, never a crash, never a pass.
@Suite struct BCBPMalformedTests {
    static let valid = GuidePassList.all + [MadeUpPasses.threeLegs, MadeUpPasses.fourLegs, MadeUpPasses.version1, MadeUpPasses.airlineDataOnly]

    @Test(arguments: valid)
    func everyPrefixIsReadWithoutACrash(text: String) {
        let scalars = Array(text.unicodeScalars)
        for length in 0..<scalars.count {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[..<length])
            let result = BCBP.parse(String(view), today: CalendarDate(year: 2026, month: 1, day: 1))
            // A prefix can only be a pass when it ends where the pass's last leg does (before its security data).
            if case .success(let pass) = result {
                #expect(pass.securityData == nil && text.unicodeScalars.dropFirst(length).first == "^", "prefix \(length) of \(text)")
            }
            if length < 60 { #expect(!BCBP.looksLikePass(String(view))) }
        }
    }

    @Test func randomDamageIsReadWithoutACrash() {
        var random = SeededGenerator(seed: 35)
        let alphabet = Array("M1234>^ABCFaf09 /\u{0}\u{1D}é".unicodeScalars)
        for _ in 0..<3000 {
            var scalars = Array(Self.valid[Int.random(in: 0..<Self.valid.count, using: &random)].unicodeScalars)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<scalars.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: scalars[index] = alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                case 1: scalars.remove(at: index)
                default: scalars.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &random)], at: index)
                }
            }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            _ = BCBP.parse(String(view), today: CalendarDate(year: 2026, month: 1, day: 1))
        }
    }

    @Test(arguments: [
        // The leg's variable size field is not hexadecimal.
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 1G0", BCBPError.Kind.invalid, "field size of variable size field, leg 1", 58),
        // It announces more than follows.
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 1FF>6", .sizeExceedsData, "variable size field, leg 1", 58),
        // The unique section's size runs past the leg's section.
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 105>6180", .sizeExceedsData, "conditional unique items", 62),
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 105>61Z0", .invalid, "field size of following structured message (unique)", 62),
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 105>6000", .truncated, "field size of following structured message (repeated), leg 1", 64),
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 108>60009ABC", .sizeExceedsData, "conditional repeated items, leg 1", 64),
        // A later leg's section must start with the repeated items' size.
        (
            "M2DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100DEF456 FRAGVALH 3664 327C012C0002 102XY", .invalid,
            "field size of following structured message (repeated), leg 2", 97
        ),
        // Security data: '^', a type, a hexadecimal length and exactly that much data.
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100^10AABCDEFGH", .sizeExceedsData, "security data", 62),
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100^102ABCD", .unexpectedData, "security data", 66),
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100^1", .truncated, "length of security data", 62),
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100^1XYABCD", .invalid, "length of security data", 62),
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100 trailing", .unexpectedData, "leg 1", 60),
        // Truncated in the mandatory items.
        ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 1", .truncated, "field size of variable size field, leg 1", 58),
        ("M2DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100DEF456 FRA", .truncated, "to city airport code, leg 2", 70),
        ("M1DESMARAIS/LUC", .truncated, "passenger name", 2),
    ])
    func damagedSectionsNameTheField(text: String, kind: BCBPError.Kind, field: String, offset: Int) {
        guard case .failure(let error) = BCBP.parse(text, today: CalendarDate(year: 2026, month: 1, day: 1)) else {
            Issue.record("parsed: \(text)")
            return
        }
        #expect(error.kind == kind, "\(error)")
        #expect(error.field == field, "\(error)")
        #expect(error.offset == offset, "\(error)")
        #expect(error.description.contains(field))
    }

    @Test(arguments: [
        "", "M", "M1", "hello", "https://example.com/boarding?pass=M1DESMARAIS",
        "0109506000134352" + "17261231" + "10AB-12",
        "@\n\u{1E}\rANSI 636000100002DL00410278ZV03190008DLDAQT64235789\nDCSSAMPLE\nDDEN\nDACMICHAEL\nDDFN\nDADJOHN\n",
        "WIFI:T:WPA;S:Office;P:hunter2;;",
        // Format codes and leg counts the resolution does not have.
        "X1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100",
        "M0DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100",
        "M5DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100",
        "m1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100",
        // Two legs announced, one there.
        "M2DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100",
        // Sixty characters of prose that happen to start with M1.
        "M1 is a motorway in England that runs north from London to Leeds, about 193 miles long.",
    ])
    func otherTextIsNotAPass(text: String) {
        #expect(!BCBP.looksLikePass(text))
        #expect(throws: BCBPError.self) { try BCBP.parse(text, today: CalendarDate(year: 2026, month: 1, day: 1)).get() }
    }
}
