import Keyboard
import Testing

/// The host side of HID POS: reports back into a code, and a device that never ends one.
@Suite struct HIDPOSAssemblerTests {
    @Test func reportsAssembleBackIntoTheCode() {
        let data = Array((0..<300).map { UInt8($0 % 251) })
        var assembler = HIDPOS.Assembler()
        let results = HIDPOS.reports(data: data, aim: "]Q1").compactMap { assembler.add($0) }
        #expect(results.count == 1)
        #expect(results.first?.aim == "]Q1")
        #expect(results.first?.data == data)
    }

    @Test func aScannerThatNeverClearsTheContinuationBitCannotGrowTheHostWithoutEnd() {
        var continued = HIDPOS.reports(data: Array(repeating: 0x41, count: HIDPOS.dataPerReport * 2), aim: "]C0")[0]
        #expect(continued[63] & 1 == 1)
        var assembler = HIDPOS.Assembler()
        for _ in 0..<(HIDPOS.Assembler.maxCodeBytes / HIDPOS.dataPerReport * 3) { #expect(assembler.add(continued) == nil) }
        continued[63] = 0
        let last = assembler.add(continued)
        #expect(last != nil)
        #expect((last?.data.count ?? .max) <= HIDPOS.Assembler.maxCodeBytes)
    }
}
