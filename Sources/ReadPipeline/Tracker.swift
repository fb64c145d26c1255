import Codes
import Imaging

/// Decides which codes seen in a frame are new reads, with the "same symbol timeout" semantics of
/// commercial presentation scanners: a code is reported when it enters the viewport, and again only
/// after it has been out of view for `absence` seconds, or after `sameCodeTimeout` seconds in view.
///
/// Codes are told apart by symbology and data, so several codes in one frame are each tracked.
///
/// A code of a symbology with no check digit that a moving or partly hidden code can give by mistake
/// (`TrackingConfig.confirm`: ITF, Codabar, Code 39, and UPC-E and EAN-8), or a linear code of a
/// few characters (`confirmBelow`) or found on one scan line, is reported only once a second
/// decoded frame read it too, as commercial scanners read such codes twice ("redundancy"); until
/// then it is unconfirmed and not in view.
///
/// When two libraries take frames in turn (looks), a code counts as in view while the latest frame
/// of any look saw it: a code only ZBar reads is not lost on the frames zxing-cpp decodes.
///
/// A code swiped slowly past the camera at the edge of what reads can go unread for longer than
/// `absence`. When it is read again within `continuation` seconds where its motion so far would have
/// taken it, it is the same pass, not a new read: a second item with the same code enters from the
/// edge, not where the first was heading. A code that stood still and is read again where it was is
/// a new read, as before. A code found whole on one frame only has no motion of its own: the
/// scene's, when it was moving then or when the code is found again (`SceneMotion`), says where it
/// was heading. A linear code the scene's motion carried on, frame by frame, since it was last seen
/// whole has left where it was, though found again less than half its size away.
///
/// Two linear codes cannot lie in one place at once. A linear code with no track found where a
/// linear code was found on at least two frames, the last of them within `misreadSeconds`, is a
/// misread of that code (ZBar read a UPC-A swiped past upside down as another EAN-13 on 2 of its 40
/// frames): not reported, and counted as a duplicate of it. While that code is in view
/// (`absence`), so is a code that needs a second frame in the place of one that does not (found on
/// one frame), which is not confirmed either, and an EAN-13 or UPC-A with one half of the other's
/// digits.
public struct Tracker: Sendable {
    /// A velocity in pixels a second.
    public struct Velocity: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
        var speed: Double { (x * x + y * y).squareRoot() }
    }

    /// A code that has been seen recently.
    public struct Track: Sendable, Hashable {
        /// The code as last seen: its data, and where it was then.
        public var symbol: Symbol
        public var lastSeen: Double
        public var lastReported: Double
        /// Seen by one decoded frame only (at `lastReported`), of a symbology that needs two: not reported yet.
        public var unconfirmed = false
        /// When a decode found `symbol` (`lastSeen` also follows frames that only keep it in view).
        var sighted: Double
        /// Decoded frames that found the code.
        var sightings = 1
        /// The latest sighting was on a moving scene's frame (read by every look).
        var moving = false
        /// The largest box a sighting gave the code: a library that read it on a few scan lines
        /// gives part of it (ZBar on one line gives a point), not the code's size.
        var size: Size
        /// The first and the latest sightings that gave the whole code (a box at least 3/4 of its
        /// largest), where and when: the code's motion. A part's centre is not the code's.
        var firstWhole: Sighting
        var lastWhole: Sighting
        /// The latest sighting of the whole code (a point's place is one of its ends).
        var whole: Symbol
        /// The scene's motion at the latest sighting, when it moved.
        var sceneVelocity: Velocity?
        /// How far the scene's motion has carried it since `lastWhole`, in pixels, added up frame by
        /// frame; nil once a frame since did not move (`Tracker.carry`).
        var drift: Drift? = Drift()
        /// How long a linear code seen as points is at least: the farthest its points have lain
        /// apart, less the scene's motion between them. ZBar's point marks the end of the code
        /// where it finished a line, so two points 0.25 s apart or less at most lie at its two ends.
        var spread = 0.0

        struct Drift: Sendable, Hashable {
            var x = 0.0
            var y = 0.0
        }

        struct Sighting: Sendable, Hashable {
            var centre: Point
            var time: Double
        }

        init(symbol: Symbol, at time: Double, unconfirmed: Bool = false, moving: Bool = false, sceneVelocity: Velocity? = nil) {
            (self.symbol, lastSeen, lastReported, self.unconfirmed, sighted, self.moving) = (symbol, time, time, unconfirmed, time, moving)
            self.sceneVelocity = sceneVelocity
            let box = symbol.corners.bounds
            size = Size(width: box.width, height: box.height)
            firstWhole = Sighting(centre: symbol.corners.centre, time: time)
            lastWhole = firstWhole
            whole = symbol
        }

        /// Takes `symbol`, found at `time`, as the code's latest sighting.
        mutating func sight(_ symbol: Symbol, at time: Double) {
            self.symbol = symbol
            if sighted < time { sightings += 1 }
            sighted = time
            let box = symbol.corners.bounds
            let (extent, largest) = (max(box.width, box.height), max(size.width, size.height))
            size = Size(width: max(size.width, box.width), height: max(size.height, box.height))
            let sighting = Sighting(centre: symbol.corners.centre, time: time)
            if let drift, time - lastWhole.time <= 0.25, isPart(box), isPart(whole.corners.bounds) {
                let (dx, dy) = (Double(sighting.centre.x - lastWhole.centre.x) - drift.x, Double(sighting.centre.y - lastWhole.centre.y) - drift.y)
                spread = max(spread, (dx * dx + dy * dy).squareRoot())
            }
            if extent * 3 > largest * 4 {
                // Every sighting before was of a part: this is the first of the whole code.
                (firstWhole, lastWhole, whole, drift) = (sighting, sighting, symbol, Drift())
            } else if extent * 4 >= largest * 3 {
                (lastWhole, whole, drift) = (sighting, symbol, Drift())
            }
        }

        /// Whether `box` holds a quarter of a linear code at most, at 1 px a module: a read on a few
        /// scan lines (ZBar on one line gives a point).
        private func isPart(_ box: PixelRect) -> Bool {
            max(box.width, box.height) * 4 < (symbol.leastModules ?? 0)
        }

        /// Where the code was last found: a box of its `size` around the latest sighting's centre.
        var place: PixelRect {
            let centre = symbol.corners.centre
            return PixelRect(x: centre.x - size.width / 2, y: centre.y - size.height / 2, width: size.width, height: size.height)
        }

        public var corners: Corners { symbol.corners }

        /// Whether `symbol`, another code found at `time`, is a misread of this track's: both
        /// linear, in one place, while this one was found on two frames, the last within `seconds`.
        /// When `weaker` (`symbol` needs a second frame and this code does not; one frame is then
        /// enough), for two EAN-13 or UPC-A codes with one half the same, or for the start or end
        /// of this code's text (`isEnd`), the last within `absence`: while this code is in view. On
        /// a frame that did not find this code (`instead`), `symbol` may also lie on its bars as last
        /// seen whole (`Symbol.liesAlong`), read on other lines: the motion benchmark's Code 128
        /// `1GWPYR93J8`, swiped at 0.25 viewport widths a second and found last as a point at its
        /// end, was read as the UPC-A `124787240029` on the next frame, 19 px across from that
        /// line. Two codes on one label are read together on most frames, and then neither is a
        /// misread.
        func isMisread(as symbol: Symbol, at time: Double, within seconds: Double, absence: Double, weaker: Bool, instead: Bool) -> Bool {
            guard !unconfirmed, sightings >= (weaker ? 1 : 2), self.symbol.misreadsInPlace, symbol.misreadsInPlace else { return false }
            guard
                place.overlaps(symbol.corners.bounds, margin: 4)
                    || (instead && whole.liesAlong(symbol))
            else { return false }
            let window = weaker || Self.shareHalf(self.symbol, symbol) || Self.isEnd(symbol, of: self.symbol) ? max(seconds, absence) : seconds
            return time - sighted <= window
        }

        /// Whether both are EAN-13 or UPC-A codes whose GTIN-13s have the same left half (digits 2
        /// to 7) or right half (8 to 13). ZBar decodes each half on its own, and a smeared or
        /// turned code read wrong keeps one of them: the motion benchmark's UPC-A `172598935535`
        /// turned 90° read as `4137739935535`, 0.29 s after its last right read.
        static func shareHalf(_ one: Symbol, _ other: Symbol) -> Bool {
            guard let one = one.gtin13, let other = other.gtin13 else { return false }
            return one[1..<7] == other[1..<7] || one[7..<13] == other[7..<13]
        }

        /// Whether `part` is the start or the end of `code`'s text, shorter, in one symbology: the
        /// motion benchmark's Code 128 `GAGABU2JXKG3` swiped diagonally at 0.25 viewport widths a
        /// second read as `GAGABU2` on one scan line 0.25 s after its last read, over where it was.
        static func isEnd(_ part: Symbol, of code: Symbol) -> Bool {
            part.symbology == code.symbology && part.bytes.count < code.bytes.count
                && (code.bytes.starts(with: part.bytes) || code.bytes.suffix(part.bytes.count).elementsEqual(part.bytes))
        }

        /// Whether `symbol`, found at `time` after this track was lost, lies where the track's
        /// motion would have taken it. The track must have moved: by at least a quarter of the
        /// code's size between its first and its latest sighting of the whole code (on a moving
        /// scene, of its size along the way it moved: a code read on single lines across its bars
        /// is a thin box, long only across the way it travels). `symbol` must lie within half the
        /// way the motion has taken it since, plus half its size, of where it leads: a sighting of
        /// part of a code has its centre up to half a code away. A code found whole on one frame
        /// only, or moving less than that while seen, goes by the scene's motion then, or by the
        /// scene's motion `now` (when `symbol` is found): `symbol` must have left the code's place
        /// (by half the code's size the way it went: one read again where it was is a new read),
        /// ahead along the scene's motion (within 70°), at most its size to either side, and not
        /// too far. While a code enters the viewport the scene's motion follows the part of it
        /// inside, not the code: a label turned 234° coming in from the right edge moved the
        /// changed tiles' centre 60° off its way (the motion benchmark's UPC-A, read on one frame
        /// at the edge and again 1.3 s and 215 px on); once it is all inside, they move with it.
        func continues(to symbol: Symbol, at time: Double, sceneNow: Velocity? = nil) -> Bool {
            guard !unconfirmed else { return false }
            // A linear code last seen while the scene moved, and found again over where it was: one
            // read only now and then as it moves (on a few lines, whose centre is not the code's).
            // Not a 2D code: one shown again in its place is a new read, as before.
            if moving, symbol.misreadsInPlace, place.overlaps(symbol.corners.bounds, margin: max(size.width, size.height) / 4) {
                return true
            }
            // A linear code read on single lines only gave points, ZBar's at one of its ends or the
            // other as it scanned the line one way or back: its length is at least its modules at 1
            // px each, and as long as its points have lain apart (`spread`); the points' motion is not
            // its own (the motion benchmark's Code 128 swiped diagonally at 0.25 viewport widths a
            // second seemed to go back up the way it came).
            let largest = Double(max(size.width, size.height))
            let extent = max(largest, Double(self.symbol.leastModules ?? 0), spread)
            let points = largest * 4 < extent
            let span = lastWhole.time - firstWhole.time
            let gap = time - lastWhole.time
            let centre = symbol.corners.centre
            let (dx, dy) = (Double(lastWhole.centre.x - firstWhole.centre.x), Double(lastWhole.centre.y - firstWhole.centre.y))
            let moved = (dx * dx + dy * dy).squareRoot()
            // The benchmark's EAN-13 read on single columns (3 x 180 px) as it went right to left
            // at 91 px/s: 41 px in 0.45 s, short of a quarter of 180, its length across the way
            // it went.
            if !points, span > 0, moved > 0, moved >= (moving ? min(extent, self.extent(along: dx, dy)) : extent) / 4 {
                let velocity = Velocity(x: dx / span, y: dy / span)
                let travelled = velocity.speed * gap
                let (ex, ey) = (
                    Double(centre.x) - (Double(lastWhole.centre.x) + velocity.x * gap),
                    Double(centre.y) - (Double(lastWhole.centre.y) + velocity.y * gap)
                )
                return (ex * ex + ey * ey).squareRoot() <= travelled / 2 + extent / 2
            }
            // Found whole on one frame, or on frames too close to show its motion (0.19 s and 30 px
            // apart for a 180 px code, on a slow diagonal swipe of the motion benchmark). The
            // scene's motion gives a direction, not a place: the benchmark's slow swipes were
            // measured at a third to half their speed, and 25-58° off.
            let (ax, ay) = (Double(centre.x - lastWhole.centre.x), Double(centre.y - lastWhole.centre.y))
            let away = (ax * ax + ay * ay).squareRoot()
            guard away > 0, away >= self.extent(along: ax, ay) / 2 || carried else { return false }
            return [sceneVelocity, sceneNow].contains { scene in
                guard let scene, scene.speed > 0 else { return false }
                let (ux, uy) = (scene.x / scene.speed, scene.y / scene.speed)
                let along = ax * ux + ay * uy
                let across = abs(ax * uy - ay * ux)
                return along >= away / 3 && across <= extent && along <= 2 * scene.speed * gap + extent
            }
        }

        /// Whether the scene's motion carried this linear code on by a quarter of its size along the
        /// way, on every frame since it was last seen whole: then it did not stand where it was,
        /// though it is found less than half its size away. A point (ZBar on one line) lies at
        /// one end of the code, up to half of it from its centre, and the scene's motion is
        /// measured slow (the motion benchmark's Code 128 seen whole once and then as points, at
        /// 0.5 viewport widths a second, found again 0.88 s later 100 px on, the scene's motion
        /// adding up to 119 px where it went 159). A code taken away and put back adds up to
        /// little.
        private var carried: Bool {
            guard symbol.misreadsInPlace, let drift else { return false }
            let length = (drift.x * drift.x + drift.y * drift.y).squareRoot()
            return length > 0 && length >= extent(along: drift.x, drift.y) / 4
        }

        /// The code's size along the direction (`x`, `y`), not zero: the width of its `size` box
        /// seen that way.
        private func extent(along x: Double, _ y: Double) -> Double {
            let length = (x * x + y * y).squareRoot()
            return (abs(x) * Double(size.width) + abs(y) * Double(size.height)) / length
        }
    }

    private struct Key: Hashable, Sendable {
        let symbology: Symbology
        let bytes: [UInt8]
    }

    public var config: TrackingConfig
    private var tracks: [Key: Track] = [:]
    /// Tracks out of view for longer than `absence`, kept for `continuation` seconds more.
    private var lost: [Key: Track] = [:]
    /// The codes of the last decoded frame of each look.
    private var inLastFrame: [[Key]] = [[]]
    /// The codes of the last decoded frame, whichever look decoded it.
    private var lastDecoded: [Key] = []
    /// The time of the latest frame taken.
    private var lastTime: Double?

    public init(config: TrackingConfig) {
        self.config = config
    }

    /// What happened to the symbols of one frame.
    public struct Outcome: Sendable {
        /// Codes to report now, in the order they were found.
        public var new: [Symbol] = []
        /// Codes seen again within their track, not reported.
        public var suppressed = 0
        /// Codes seen for the first time that a second decoded frame must confirm before they are reported.
        public var unconfirmed = 0
        /// Of `suppressed`, the codes taken for a misread of another in their place: a later frame
        /// decides, once that code is out of view.
        public var misreads = 0
    }

    /// Takes the symbols found in a frame captured at `time` (seconds on a monotonic clock) by look
    /// `look` of the decoder. A frame that did not `change` from the last decoded one (a timer
    /// decode) shows the same scene: the codes of the last decode stay in view whatever this decode
    /// finds, so a code held still is never reported twice because one decode missed it. `everyLook`:
    /// every library read this frame (a moving scene's), so it shows all that is in view.
    /// `sceneVelocity`: how the scene moved up to this frame (`SceneMotion`), nil when it did not.
    public mutating func update(
        with symbols: [Symbol], at time: Double, look: Int = 0, changed: Bool = true, everyLook: Bool = false, sceneVelocity: Velocity? = nil
    ) -> Outcome {
        while inLastFrame.count <= look { inLastFrame.append([]) }
        if everyLook && changed {
            for index in inLastFrame.indices where index != look { inLastFrame[index].removeAll(keepingCapacity: true) }
        }
        keepInView(at: time, except: changed ? look : nil)
        carry(sceneVelocity, to: time)
        // A new dictionary only when a track expires: the per-frame path allocates nothing for it.
        if tracks.values.contains(where: { time - $0.lastSeen > config.absenceSeconds }) {
            for (key, track) in tracks where time - track.lastSeen > config.absenceSeconds && config.continuationSeconds > 0 {
                lost[key] = track
            }
            tracks = tracks.filter { time - $0.value.lastSeen <= config.absenceSeconds }
        }
        if lost.values.contains(where: { time - $0.lastSeen > config.absenceSeconds + config.continuationSeconds }) {
            lost = lost.filter { time - $0.value.lastSeen <= config.absenceSeconds + config.continuationSeconds }
        }
        var outcome = Outcome()
        let keys = symbols.map { Key(symbology: $0.symbology, bytes: $0.bytes) }
        // An unchanged frame shows what the last decoded frame showed: its codes, and what this look finds.
        inLastFrame[look] = changed ? keys : lastDecoded + keys.filter { !lastDecoded.contains($0) }
        lastDecoded = inLastFrame[look]
        // A code that needs a second frame, in the place of one that needs none found in this
        // frame, is part of that code's bars read as a shorter code: it is not confirmed.
        if config.misreadSeconds > 0, tracks.values.contains(where: { $0.unconfirmed && overruled($0.symbol, in: symbols) }) {
            tracks = tracks.filter { !($0.value.unconfirmed && overruled($0.value.symbol, in: symbols)) }
        }
        for (symbol, key) in zip(symbols, keys) {
            if tracks[key] == nil, let track = lost.removeValue(forKey: key),
                (track.unconfirmed && track.moving) || track.continues(to: symbol, at: time, sceneNow: sceneVelocity)
            {
                // Lost while moving, and found again where it was heading: the same pass. One that
                // waits for a second frame, seen while the scene moved, is confirmed by this one
                // wherever it lies: a slow swipe's code read on one line now and then, 0.63 s apart.
                tracks[key] = track
            }
            if tracks[key] == nil, config.misreadSeconds > 0,
                overruled(symbol, in: symbols)
                    || tracks.contains(where: { other, track in
                        track.isMisread(
                            as: symbol, at: time, within: config.misreadSeconds, absence: config.absenceSeconds,
                            weaker: overrules(track.symbol, symbol), instead: !keys.contains(other))
                    })
            {
                outcome.suppressed += 1
                outcome.misreads += 1
                continue
            }
            if var track = tracks[key] {
                let confirmed = track.unconfirmed && time > track.lastReported
                track.lastSeen = time
                track.sight(symbol, at: time)
                track.moving = everyLook
                track.sceneVelocity = sceneVelocity
                if track.unconfirmed {
                    // A second decoded frame: confirmed and reported now; the same frame again: still waiting.
                    if confirmed {
                        (track.unconfirmed, track.lastReported) = (false, time)
                        outcome.new.append(symbol)
                    } else {
                        outcome.unconfirmed += 1
                    }
                } else if config.sameCodeTimeoutSeconds > 0, time - track.lastReported >= config.sameCodeTimeoutSeconds {
                    track.lastReported = time
                    outcome.new.append(symbol)
                } else {
                    outcome.suppressed += 1
                }
                tracks[key] = track
            } else if config.needsSecondFrame(symbol) {
                tracks[key] = Track(symbol: symbol, at: time, unconfirmed: true, moving: everyLook, sceneVelocity: sceneVelocity)
                outcome.unconfirmed += 1
            } else {
                tracks[key] = Track(symbol: symbol, at: time, moving: everyLook, sceneVelocity: sceneVelocity)
                outcome.new.append(symbol)
            }
        }
        return outcome
    }

    /// Whether `code` overrules `other` in one place: linear codes both, `other` of a symbology
    /// that needs a second frame (`confirm`), `code` of one that does not. The motion benchmark's
    /// UPC-E `01426182` was the first 49 modules of a UPC-A swiped past, read on two frames around
    /// the UPC-A's first.
    private func overrules(_ code: Symbol, _ other: Symbol) -> Bool {
        code.misreadsInPlace && other.misreadsInPlace && config.needsSecondFrame(other) && !config.needsSecondFrame(code)
    }

    /// Whether a code of `symbols` that overrules `symbol` lies in its place, or along it
    /// (`Symbol.liesAlong`) when `symbol` is the shorter code, part of its bars. The motion
    /// benchmark's UPC-A `096334609163`, turned 342° and swiped right to left at 0.25 viewport
    /// widths a second, gave the EAN-8 `63346091` (67 of its modules) on lines 7 px from the ones
    /// that read it whole, on frames that read both: those lines left the slanted bars through
    /// their ends, and the quiet-zone check found the label's white past the read's.
    private func overruled(_ symbol: Symbol, in symbols: [Symbol]) -> Bool {
        symbols.contains { code in
            overrules(code, symbol)
                && (code.sharesPlace(with: symbol) || ((symbol.leastModules ?? .max) < (code.leastModules ?? 0) && code.liesAlong(symbol)))
        }
    }

    /// A frame at `time` was not decoded because it looked like the last decoded one: the codes of
    /// that frame (of each look's last frame) are taken as still in view.
    public mutating func touch(at time: Double) {
        keepInView(at: time, except: nil)
        carry(nil, to: time)
    }

    /// Adds the scene's motion since the last frame to every track's drift; a frame that did not
    /// move (`velocity` nil) ends it. In place, allocating nothing.
    private mutating func carry(_ velocity: Velocity?, to time: Double) {
        defer { lastTime = time }
        guard let lastTime, time > lastTime else { return }
        let seconds = time - lastTime
        func carry(_ track: inout Track) {
            guard var drift = track.drift else { return }
            if let velocity {
                drift.x += velocity.x * seconds
                drift.y += velocity.y * seconds
                track.drift = drift
            } else {
                track.drift = nil
            }
        }
        func carry(_ tracks: inout [Key: Track]) {
            var index = tracks.values.startIndex
            while index != tracks.values.endIndex {
                carry(&tracks.values[index])
                tracks.values.formIndex(after: &index)
            }
        }
        carry(&tracks)
        carry(&lost)
    }

    /// Marks the codes of each look's last frame, but look `skipped`'s, as seen at `time`.
    private mutating func keepInView(at time: Double, except skipped: Int?) {
        for (look, keys) in inLastFrame.enumerated() where look != skipped {
            for key in keys { tracks[key]?.lastSeen = time }
        }
    }

    /// The codes currently in view or recently seen.
    public var tracked: [Track] { Array(tracks.values) }

    /// The codes in view at `time`, the time of the latest frame: those its decode found, and those
    /// kept in view across it (an unchanged frame, or another look's code), where last seen.
    public func inView(at time: Double) -> [Symbol] {
        tracks.values.filter { $0.lastSeen == time && !$0.unconfirmed }.map(\.symbol).sorted {
            ($0.corners.points[0].y, $0.corners.points[0].x) < ($1.corners.points[0].y, $1.corners.points[0].x)
        }
    }
}

/// When a code that stays in view is reported again.
public struct TrackingConfig: Sendable, Hashable {
    /// A code must be out of view this long before it counts as new.
    public var absenceSeconds = 0.5
    /// A code in view is reported again after this long; 0 means never while it stays in view.
    public var sameCodeTimeoutSeconds = 0.0
    /// A moving code out of view for longer than `absenceSeconds` and read again within this many
    /// seconds more, where its motion would have taken it, is the same pass, and a code waiting for
    /// a second frame (`needsSecondFrame`), seen while the scene moved, is confirmed by a read
    /// within them; 0 turns that off.
    public var continuationSeconds = 1.5
    /// Another linear code found in the place of a linear code found on two frames, the last within
    /// this many seconds, is a misread of it; 0 turns that off.
    public var misreadSeconds = 0.2
    /// Symbologies whose codes are reported only once two decoded frames read them: those with no
    /// check digit, which a code moving past or partly hidden can give by mistake (an EAN-13 swiped
    /// past was read as the ITF `677452`), and the short retail codes a blurred EAN-13 gives (the
    /// motion benchmark saw `00187723`). Commercial scanners read the first twice by default too.
    public var confirm: Set<Symbology> = Self.weakSymbologies
    /// Linear codes of fewer characters than this are reported only once two decoded frames read
    /// them too, whatever their symbology: a few bars of a longer code can pass a check (the motion
    /// benchmark's Code 128 `W`, the first character of `WREDOKZ2UE` turned 126°, on one frame);
    /// 0 turns this off.
    public var confirmBelow = 4

    /// Whether `symbol` is reported only once a second decoded frame read it (`confirm`, `confirmBelow`),
    /// or is a linear code found on one scan line (`Symbol.isOneLine`). Two wrong characters of a
    /// Code 128 can cancel in its mod-103 check, and one line gives no other line to outvote them:
    /// the turned look, whose reads zxing-cpp cannot confirm, read the motion benchmark's
    /// `DHXZKOVAL6MZ` swiped diagonally at 0.5 viewport widths a second as `DHXZKOVA%6M*` on one
    /// line of one frame, and as itself on single lines of 9 others. A code read on one line now and
    /// then is read so on another frame too.
    public func needsSecondFrame(_ symbol: Symbol) -> Bool {
        confirm.contains(symbol.symbology) || (symbol.misreadsInPlace && (symbol.bytes.count < confirmBelow || symbol.isOneLine))
    }

    /// ITF, Codabar and Code 39: no check digit is part of the symbology. UPC-E and EAN-8: 8 digits,
    /// one a check digit, that part of a smeared EAN-13 can pass for.
    public static let weakSymbologies: Set<Symbology> = [.itf, .codabar, .code39, .upce, .ean8]

    public init() {}
}
