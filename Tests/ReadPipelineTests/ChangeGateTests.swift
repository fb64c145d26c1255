import Imaging
import ReadPipeline
import Testing

@Suite struct ChangeGateTests {
    static let size = Size(width: 320, height: 240)
    static let region = Viewport.standard.pixels(in: size)

    static func scene(level: Int = 120, noise: Int = 0, seed: UInt64 = 1, square: Bool = false) -> Frame {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: size.width * size.height)
        for y in 0..<size.height {
            for x in 0..<size.width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let jitter = noise == 0 ? 0 : Int(state >> 33) % (2 * noise + 1) - noise
                // A card with a pattern, in the middle, when asked for.
                let card = square && abs(x - 160) < 50 && abs(y - 120) < 50 ? ((x / 6 + y / 6) % 2 == 0 ? -100 : 100) : 0
                pixels[y * size.width + x] = UInt8(clamping: level + jitter + card)
            }
        }
        return Frame(width: size.width, height: size.height, pixels: pixels)
    }

    static func gate() -> ChangeGate {
        var config = GatingConfig()
        config.maxIntervalSeconds = 0.25
        return ChangeGate(config: config)
    }

    @Test func anUnchangedNoisySceneIsDecodedOnlyAtTheMinimumRate() {
        var gate = Self.gate()
        var decoded: [Int] = []
        for frame in 0..<60 {
            if gate.decide(Self.scene(noise: 3, seed: UInt64(frame)), viewport: Self.region, at: Double(frame) / 30) != .skip { decoded.append(frame) }
        }
        // First frame, then every 0.25 s (about every 8th frame at 30 fps).
        #expect(decoded.first == 0)
        #expect(decoded.count >= 7 && decoded.count <= 9, "\(decoded)")
    }

    @Test func aCodeAppearingIsDecodedInTheFrameItAppears() {
        var gate = Self.gate()
        do {
            let decided = gate.decide(Self.scene(), viewport: Self.region, at: 0) != .skip
            #expect(decided)
        }
        do {
            let decided = gate.decide(Self.scene(), viewport: Self.region, at: 0.033) != .skip
            #expect(!decided)
        }
        do {
            let decided = gate.decide(Self.scene(square: true), viewport: Self.region, at: 0.066) != .skip
            #expect(decided)
        }
        do {
            let decided = gate.decide(Self.scene(square: true), viewport: Self.region, at: 0.1) != .skip
            #expect(!decided)
        }
    }

    @Test func brightnessFlickerIsNotChange() {
        var gate = Self.gate()
        do {
            let decided = gate.decide(Self.scene(level: 120, square: true), viewport: Self.region, at: 0) != .skip
            #expect(decided)
        }
        // Levels at which no pixel of the card saturates: clipped pixels change what is seen.
        for (index, level) in [150, 100, 135, 105].enumerated() {
            do {
                let decided = gate.decide(Self.scene(level: level, square: true), viewport: Self.region, at: 0.03 * Double(index + 1)) != .skip
                #expect(!decided)
            }
        }
    }

    @Test func resetAndDisabledAlwaysDecode() {
        var gate = Self.gate()
        do {
            let decided = gate.decide(Self.scene(), viewport: Self.region, at: 0) != .skip
            #expect(decided)
        }
        gate.reset()
        do {
            let decided = gate.decide(Self.scene(), viewport: Self.region, at: 0.01) != .skip
            #expect(decided)
        }
        var off = GatingConfig()
        off.enabled = false
        var always = ChangeGate(config: off)
        var decodes = 0
        for step in 0..<5 where always.decide(Self.scene(), viewport: Self.region, at: Double(step) * 0.01) != .skip { decodes += 1 }
        #expect(decodes == 5)
    }

    @Test func timerDecodesTakeSecondLooksOnlyAtTheirInterval() {
        var config = GatingConfig()
        config.maxIntervalSeconds = 0.25
        config.secondLookIntervalSeconds = 1
        var gate = ChangeGate(config: config)
        var decisions: [(time: Double, decision: GateDecision)] = []
        // Two seconds of an unchanged noisy scene, then a card appears, at 30 fps.
        for frame in 0..<75 {
            let time = Double(frame) / 30
            let decision = gate.decide(Self.scene(noise: 3, seed: UInt64(frame), square: frame >= 70), viewport: Self.region, at: time)
            if decision != .skip { decisions.append((time, decision)) }
        }
        let full = decisions.filter { if case .decode(true, _) = $0.decision { true } else { false } }.map(\.time)
        let plain = decisions.filter { if case .decode(false, _) = $0.decision { true } else { false } }.map(\.time)
        // The first frame and the card's frame are changes; the timer's decodes take second looks once a second.
        #expect(full.first == 0)
        #expect(full.last == 70.0 / 30)
        #expect(full.count == 4, "\(full)")
        #expect(zip(full.dropLast(), full.dropFirst().dropLast()).allSatisfy { $1 - $0 >= 1 }, "\(full)")
        #expect(plain.count >= 5, "\(plain)")
        // With gating off, every frame is decoded with every look.
        var off = GatingConfig()
        off.enabled = false
        var always = ChangeGate(config: off)
        #expect(always.decide(Self.scene(), viewport: Self.region, at: 0) == .decode(secondLooks: true))
    }

    /// Where a frame changed is where the card moved: the centre of the changed tiles follows a
    /// card slid across the viewport, and an unchanged frame has none.
    @Test func theChangeCentreFollowsWhatMoves() {
        func card(at x: Int) -> Frame {
            var pixels = [UInt8](repeating: 120, count: Self.size.width * Self.size.height)
            for row in 100..<140 {
                for column in x..<(x + 40) { pixels[row * Self.size.width + column] = (column / 4 + row / 4) % 2 == 0 ? 20 : 230 }
            }
            return Frame(width: Self.size.width, height: Self.size.height, pixels: pixels)
        }
        var gate = Self.gate()
        // The viewport is x 70 to 250: the card lies in it from the first frame on.
        _ = gate.decide(card(at: 72), viewport: Self.region, at: 0)
        #expect(gate.changeCentre == nil, "the first frame has nothing to compare with")
        var centres: [Double] = []
        for (index, x) in stride(from: 88, through: 200, by: 16).enumerated() {
            _ = gate.decide(card(at: x), viewport: Self.region, at: Double(index + 1) / 30)
            guard let centre = gate.changeCentre else { break }
            centres.append(centre.x)
            // The card's rows are 100 to 140.
            #expect(abs(centre.y - 120) < 30, "\(centre)")
        }
        #expect(centres.count == 8 && centres == centres.sorted() && centres.last! - centres.first! > 80, "\(centres)")
        _ = gate.decide(card(at: 200), viewport: Self.region, at: 1)
        #expect(gate.changeCentre == nil)
    }
}
