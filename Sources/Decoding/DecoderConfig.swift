import Codes

/// Which library decodes: ZBar, zxing-cpp, or both (each symbology routed to one of them).
public enum DecoderEngine: String, Sendable, Hashable, CaseIterable {
    case zbar, zxing, both

    /// The engine of the daemon and of `scan` when none is named.
    public static let standard = DecoderEngine.both

    /// Symbologies only zxing-cpp reads (`Symbology.readers`).
    public static let zxingOnly = Set(Symbology.allCases.filter { $0.readers == [.zxing] })

    /// Symbologies only ZBar reads here (`Symbology.readers`).
    public static let zbarOnly = Set(Symbology.allCases.filter { $0.readers == [.zbar] })

    /// Why this engine cannot read all of `symbologies`, or nil when it can: the one check the
    /// config parser and the decoders make, with one message.
    public func refusal(for symbologies: Set<Symbology>) -> String? {
        func names(_ set: Set<Symbology>) -> String { set.map(\.rawValue).sorted().joined(separator: ", ") }
        switch self {
        case .both:
            return nil
        case .zbar:
            let refused = symbologies.filter { !$0.readers.contains(.zbar) }
            return refused.isEmpty ? nil : "ZBar cannot read \(names(refused)): set decoder.engine to both (or zxing)"
        case .zxing:
            let refused = symbologies.filter { !$0.readers.contains(.zxing) }
            return refused.isEmpty
                ? nil
                : "\(names(refused)) are read by ZBar only (zxing-cpp gives ISBN and EAN add-ons no symbology of their own): set decoder.engine to both"
        }
    }

    /// What is read when the config names no symbologies: ZBar's defaults, and what the engine
    /// adds or cannot read.
    public var defaultSymbologies: Set<Symbology> {
        switch self {
        case .zbar: Set(Symbology.zbarDefaults)
        case .both: Set(Symbology.zbarDefaults).union(Self.zxingOnly)
        case .zxing: Set(Symbology.zbarDefaults).union(Self.zxingOnly).subtracting(Self.zbarOnly)
        }
    }
}

/// Which decoder reads which symbologies.
public struct DecoderConfig: Sendable, Hashable {
    /// The library, or both: `both` by default, which reads the most (docs/configuration.md, "Two decoders").
    public var engine = DecoderEngine.standard
    /// The symbologies looked for.
    public var symbologies: Set<Symbology> = DecoderEngine.standard.defaultSymbologies
    /// Minimum and maximum data lengths per symbology, where set. ITF is 14 digits (ITF-14, the GTIN
    /// of a case) unless the config says otherwise: ITF has no check digit and needs only a few bars,
    /// so the bars of a moving code, a Code 128 or even sensor noise give short ITFs (`677452` in
    /// issue #37, `667999` from a noise frame); commercial scanners default ITF to 14 for this reason.
    public var lengths: [Symbology: LengthLimit] = Self.defaultLengths

    /// The length limits of a config that sets none.
    /// ITF as ITF-14, and Codabar of at least 4 characters between its start and stop characters
    /// (the text counts them: `A1234B` is 6): commercial scanners' defaults, since misread bars
    /// and noise give short ones.
    public static let defaultLengths: [Symbology: LengthLimit] = [.itf: LengthLimit(min: 14, max: 14), .codabar: LengthLimit(min: 6)]
    /// Extra passes tried on a frame where the first found nothing.
    public var preprocessing: Set<Preprocessing> = Preprocessing.defaults

    public init() {}
}

/// A second look at a frame where the first pass found nothing (so it costs nothing once a code is read).
public enum Preprocessing: String, Sendable, Hashable, CaseIterable {
    /// ZBar again on the inverted image: light codes on a dark ground (phone screens in dark mode).
    case inverted
    /// ZBar again at half size: codes too large or too blurred for the full frame.
    case secondScale = "second-scale"
    /// zxing-cpp again with its global-histogram binarizer: uneven light, low contrast.
    case binarizer
    /// On a moving scene's frame where nothing was read, the motion blur found in the viewport
    /// undone (`MotionBlur`), and both libraries again on the sharpened viewport (engine both).
    case deblur
    /// ZBar again on the viewport turned 45° (`Turn45`): a linear code held slanted 30 to 60°,
    /// which no row or column crosses whole.
    case turned
    /// On a still image where every other look found nothing (engine both), zxing-cpp's second
    /// looks again on the viewport scaled up twice (`Frame.scaledUp`), when it has at most 640×480
    /// pixels: a code whose modules are 1 to 2.5 px wide.
    case upscaled
    /// After `upscaled`, both libraries again on the viewport with an unsharp mask
    /// (`Frame.sharpened`): a code out of focus.
    case sharpened

    /// Chosen from the accuracy, frame-cost and motion benchmarks (docs/configuration.md, "Two decoders").
    public static let defaults: Set<Preprocessing> = [.inverted, .secondScale, .binarizer, .deblur, .turned, .upscaled, .sharpened]
}

/// Bounds on the number of characters a code may carry, to reject partial reads.
public struct LengthLimit: Sendable, Hashable {
    public var min: Int?
    public var max: Int?
    public init(min: Int? = nil, max: Int? = nil) {
        self.min = min
        self.max = max
    }
}
