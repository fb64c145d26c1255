import Foundation
import Imaging
import Testing

/// The still image's closer looks: a region scaled up twice, and a region sharpened.
@Suite struct SharpeningTests {
    /// A frame whose columns from `edge` on are `right`, the others `left`.
    static func step(width: Int, height: Int, edge: Int, left: UInt8, right: UInt8) -> Frame {
        Frame(width: width, height: height, pixels: (0..<width * height).map { $0 % width < edge ? left : right })
    }

    /// The region only: twice its size, flat where it is flat, and an edge between its two levels
    /// at twice its place, with the kernel's ringing (Lanczos-3: about a tenth of the step) beside it.
    @Test func aScaledUpRegionIsTwiceItsSizeWithItsEdgeInPlace() {
        let frame = Self.step(width: 40, height: 20, edge: 20, left: 40, right: 200)
        let region = PixelRect(x: 10, y: 5, width: 20, height: 10)
        let scaled = frame.scaledUp(region)
        #expect(scaled.size == Size(width: 40, height: 20))
        let row = (0..<40).map { scaled[$0, 10] }
        #expect(row[0..<12].allSatisfy { $0 == 40 } && row[28...].allSatisfy { $0 == 200 }, "\(row)")
        #expect(row.allSatisfy { $0 >= 20 && $0 <= 220 }, "ringing: \(row)")
        // The region's edge lies between its pixels 9 and 10, which the result's 19 and 20 straddle.
        #expect(row[19] < 120 && row[20] > 120, "\(row)")
        #expect((0..<20).allSatisfy { scaled[5, $0] == 40 }, "every row alike")
    }

    /// The scaled-up look's kernel is Lanczos-3 at a quarter pixel either side of a source pixel.
    @Test func theScalingWeightsAreLanczosThree() {
        for (phase, offset) in [(0, -0.25), (1, 0.25)] {
            let weights = (-3...3).map { tap -> Double in
                let x = Double(tap) - offset
                return 3 * sin(Double.pi * x) * sin(Double.pi * x / 3) / (Double.pi * Double.pi * x * x)
            }
            let total = weights.reduce(0, +)
            for (index, weight) in weights.enumerated() {
                #expect(abs(Double(Frame.lanczosWeights[phase][index]) - weight / total) < 1e-6, "phase \(phase) tap \(index - 3)")
            }
        }
    }

    /// Sharpening leaves flat grey alone and steepens a soft edge: the dark side darker and the
    /// light side lighter next to it, within 0...255.
    @Test func sharpeningSteepensASoftEdgeAndLeavesFlatGreyAlone() {
        let levels: [UInt8] = (0..<60).map { x in UInt8(max(60, min(180, 60 + (x - 24) * 10))) }
        let ramp = Frame(width: 60, height: 9, pixels: (0..<9).flatMap { _ in levels })
        let sharp = ramp.sharpened(ramp.whole)
        #expect(sharp.size == ramp.size)
        #expect(sharp[2, 4] == 60 && sharp[57, 4] == 180, "flat away from the edge")
        #expect(sharp[25, 4] < ramp[25, 4] && sharp[35, 4] > ramp[35, 4], "\((20..<40).map { sharp[$0, 4] })")
        let flat = Frame(width: 16, height: 16, pixels: [UInt8](repeating: 90, count: 256))
        #expect((0..<16).allSatisfy { flat.sharpened(flat.whole)[$0, $0] == 90 })
    }
}
