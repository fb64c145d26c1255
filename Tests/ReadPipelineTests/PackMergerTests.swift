import Codes
import Foundation
import ReadPipeline
import ScannerTestSupport
import Testing

/// One read per pack: codes with the same GTIN seen together.
@Suite struct PackMergerTests {
    let ean = Read.sample(.ean13, "9506000134352")
    let link = Read.sample(.qr, "https://id.gs1.org/01/09506000134352/10/ABC123?17=271231")
    let matrix = Read.sample(.datamatrix, "0109506000134352\u{1D}10XYZ", gs1: true)
    let other = Read.sample(.ean13, "4006381333931")
    let text = Read.sample(.qr, "hello")

    @Test func gtinsOfEachKind() {
        #expect(ean.gtin == "09506000134352")
        #expect(link.gtin == "09506000134352")
        #expect(matrix.gtin == "09506000134352")
        #expect(Read.sample(.upce, "01234565").gtin == "00012345000065")
        #expect(Read.sample(.ean8, "96385074").gtin == "00000096385074")
        #expect(Read.sample(.ean13, "9506000134353").gtin == nil, "a wrong check digit is no GTIN")
        #expect(text.gtin == nil)
    }

    @Test func codesOfOnePackInOneFrameAreOneReadThatCarriesTheMostData() throws {
        var merger = PackMerger(config: PackConfig())
        let reads = merger.add([ean, text, link, other], at: 1)
        try #require(reads.count == 3)
        #expect(reads[0].symbologyID == .qr && reads[0].gtin == "09506000134352", "the Digital Link, with (10) and (17)")
        #expect(reads[0].merged == [MergedCode(ean)])
        #expect(reads[0].merged?.first?.text == "9506000134352")
        #expect(reads[1].text == "hello" && reads[1].merged == nil)
        #expect(reads[2].text == "4006381333931" && reads[2].merged == nil)
    }

    @Test func threeCodesOfOnePackNameTheOtherTwo() {
        var merger = PackMerger(config: PackConfig())
        let reads = merger.add([ean, link, matrix], at: 1)
        #expect(reads.count == 1)
        #expect(reads.first?.symbologyID == .qr, "three elements beat two; the first found among equals")
        #expect(Set(reads.first?.merged?.map(\.symbologyID) ?? []) == [.ean13, .datamatrix])
    }

    @Test func preferLinearKeepsTheEAN() {
        var config = PackConfig()
        config.prefer = .linear
        var merger = PackMerger(config: config)
        let reads = merger.add([link, ean], at: 1)
        #expect(reads.map(\.symbologyID) == [.ean13])
        #expect(reads.first?.merged?.map(\.symbologyID) == [.qr])
    }

    @Test func mergeOffReportsEveryCode() {
        var config = PackConfig()
        config.merge = false
        var merger = PackMerger(config: config)
        #expect(merger.add([ean, link], at: 1).count == 2)
    }

    @Test func aWindowWaitsForThePacksOtherCodesAndNothingIsLost() {
        var config = PackConfig()
        config.windowSeconds = 0.3
        var merger = PackMerger(config: config)
        #expect(merger.add([ean, text], at: 10).map(\.text) == ["hello"], "codes without a GTIN go at once")
        #expect(merger.isWaiting)
        #expect(merger.due(at: 10.2).isEmpty)
        #expect(merger.add([link], at: 10.25).isEmpty, "the link joins the waiting EAN")
        let due = merger.due(at: 10.3)
        #expect(due.count == 1 && due.first?.symbologyID == .qr && due.first?.merged?.count == 1)
        #expect(!merger.isWaiting)
        // After the window the same GTIN is a new item.
        #expect(merger.add([ean], at: 11).isEmpty)
        #expect(merger.flush().map(\.symbologyID) == [.ean13], "flush hands over what waits")
        #expect(merger.flush().isEmpty)
    }
}
