import Codes
import Decoding

/// Which of the decoder's passes takes each decoded frame of a stream: the one place that decides
/// how ZBar and zxing-cpp share the frames (engine both).
///
/// A decode with second looks (a new scene) starts at look 0, and the frames right after it are owed
/// the other looks, which the gate decodes whether they changed or not: a scene gets every look.
/// Plain timer decodes take turns.
///
/// Engine both's looks are ZBar, then zxing-cpp's first pass, then zxing-cpp's second looks (tryRotate,
/// tryInvert, the global-histogram binarizer). On a scene ZBar read, zxing-cpp's first pass looks only
/// for what ZBar cannot read, and its second looks run only when no look at the scene found anything
/// and the decode takes second looks (docs/configuration.md, "Two decoders").
///
/// A moving scene (a changed frame right after another changed frame) is the exception: each of its
/// frames gets both libraries' first passes (`.moving`), since a swipe may have one sharp frame and
/// it may be either library's to read. When it holds still again, the frames after are owed ZBar's
/// second looks and zxing-cpp's. A scene's first changed frame still gets ZBar alone, so a code put
/// down in view is read as fast as by ZBar alone.
///
/// A trigger session's first frame is the other exception: it gets every library and every pass at
/// once (the still image's look), since the user is waiting for that one read and the session is short.
public struct LookSchedule: Sendable {
    /// The decoder's passes, one look each.
    public let passes: [DecoderPass]
    /// Looks still owed to the scene of the last full decode (a bit per index in `passes`, lowest
    /// first), and the look of the next plain one.
    private var owed: UInt32 = 0
    private var plainLook = 0
    /// Whether the last decoded frame had changed from the one before it.
    private var lastChanged = false
    /// The look the next frame owes to confirm a code only one frame read (`confirm`).
    private var confirming: Look?
    /// Whether ZBar's latest look found anything: zxing-cpp's QR and linear codes are then not needed.
    private var zbarFound = false
    /// Whether any look at the current scene found anything: zxing-cpp's second looks are then not needed.
    private var sceneFound = false
    /// The next decoded frame starts a trigger session: every pass on it.
    private var sessionStarts = false

    public init(passes: [DecoderPass]) {
        self.passes = passes.isEmpty ? [.whole] : passes
    }

    /// How many frames one full look at a scene takes.
    public var looks: Int { passes.count }

    /// Whether the next frame is owed a look at the scene of the last full decode.
    public var owesLook: Bool { owed != 0 || confirming != nil }

    /// Whether a changed frame right after a changed frame gets both libraries' first passes.
    private var readsMotion: Bool { passes.contains(.zbar) && passes.contains(.zxingFirst) }

    /// One frame's look.
    public struct Look: Sendable, Hashable {
        /// Its place in `passes` (the tracker keeps the codes of each look's latest frame); a moving
        /// scene's look is 0 and stands for every look.
        public var index: Int
        public var pass: DecoderPass
        /// ZBar's latest look found codes: zxing-cpp looks only for what ZBar cannot read.
        public var narrowed = false
        /// Nothing to do: zxing-cpp's second looks on a scene already read, or on a decode without second looks.
        public var skipped = false
    }

    /// The look of a frame the gate decoded, with or without `secondLooks`, `changed` from the last decoded frame or not.
    public mutating func look(secondLooks: Bool, changed: Bool) -> Look {
        defer { lastChanged = changed }
        if sessionStarts {
            sessionStarts = false
            owed = 0
            return Look(index: 0, pass: .whole)
        }
        if changed && lastChanged && readsMotion {
            // The scene moves: both first passes now, and the second looks once it holds still.
            (zbarFound, sceneFound) = (false, false)
            owed = Self.bit(0) | Self.bit(passes.firstIndex(of: .zxingSecond) ?? 0)
            return Look(index: 0, pass: .moving)
        }
        if let again = confirming {
            confirming = nil
            return Look(index: again.index, pass: again.pass)
        }
        let index: Int
        if owed != 0 {
            index = owed.trailingZeroBitCount
            owed &= owed - 1
        } else if secondLooks {
            owed = (1 << UInt32(looks)) - 2
            index = 0
        } else {
            plainLook = (plainLook + 1) % looks
            index = plainLook
        }
        var pass = passes[index]
        if changed && (pass == .zxingFirst || pass == .zxingSecond) {
            // A frame the earlier looks did not see: a scene that keeps changing is read by ZBar and
            // zxing-cpp in turn, and zxing-cpp's second looks wait until it holds still.
            (zbarFound, sceneFound, pass) = (false, false, .zxingFirst)
        }
        switch pass {
        case .still, .whole, .zbar, .moving:
            return Look(index: index, pass: pass)
        case .zxingFirst:
            if !passes.contains(.zbar) { sceneFound = false }
            return Look(index: index, pass: pass, narrowed: zbarFound)
        case .zxingSecond:
            return Look(index: index, pass: pass, skipped: !secondLooks || sceneFound)
        }
    }

    /// What `look` found.
    public mutating func found(_ symbols: [Symbol], by look: Look) {
        switch look.pass {
        case .still, .whole, .zbar, .moving: (zbarFound, sceneFound) = (!symbols.isEmpty, !symbols.isEmpty)
        case .zxingFirst: sceneFound = sceneFound || !symbols.isEmpty
        case .zxingSecond: break
        }
    }

    /// `look` found a code that a second frame must confirm (a symbology with no check digit), or
    /// one the tracker took for a misread of a code still in view: the next frame is decoded by the
    /// same look, whether it changed or not, so that a code put down and held is read on its second
    /// frame (or once the other is out of view) rather than at the gate's timer. A moving scene's
    /// next frame gets both libraries anyway.
    public mutating func confirm(_ look: Look) {
        confirming = Look(index: look.index, pass: look.pass)
    }

    /// Owes nothing: the next decode is a new scene's first look (a trigger, a resume, a new camera).
    public mutating func reset() {
        owed = 0
        confirming = nil
        sessionStarts = false
        lastChanged = false
    }

    private static func bit(_ index: Int) -> UInt32 { 1 << UInt32(index) }

    /// A trigger session starts: its first decoded frame gets every pass (when the decoder's
    /// passes take frames in turn; one pass is every pass already).
    public mutating func startSession() {
        reset()
        sessionStarts = looks > 1
    }
}
