import Foundation
import Glibc
import ImageFiles
import Imaging
import Platform
import ReadPipeline

/// Passes of a recorded stream (motion-bench's kept passes: one directory of PGM frames each)
/// through the read pipeline in this process, with the daemon's default config, on a frame clock
/// instead of a camera: what the pipeline reads when it gets every frame, or the frames a camera
/// handing out its newest frame would leave it at a given cost per decode. The same frames give
/// the same reads (at `--load 0`), so a lost pass or a duplicate of a live run can be told apart
/// from frames its camera dropped, and traced.
///
/// Between passes, and before the first, the background frame is shown for `grace` seconds, as the
/// motion benchmark shows the counter. One JSON object per read on stdout:
/// `{"pass": I, "frame": F, "symbology": ..., "text": ...}` (frames past a pass's last are the
/// counter after it), one `{"pass": I, "frames": N}` per pass, and at the end the frames decoded
/// per pass (`{"decoded": [...]}`).
struct StreamReplay {
    var passes: [String]
    var background: String
    var fps = 30.0
    var grace = 0.5
    /// Each decode keeps the pipeline busy for `load` times the CPU time it took, on the frame
    /// clock; frames arriving meanwhile are skipped but the newest (a camera's newest buffer).
    /// 0: every frame is decoded.
    var load = 0.0
    /// `load` times the decode's wall time instead, which counts its wait for a look on another
    /// core: a camera's frames go by for that long. The CPU time is the steadier on a busy machine.
    var wall = false
    /// Each decoded frame's cost as a line too (`{"pass", "frame", "ms", "wall", "found"}`: the
    /// frame thread's CPU time and the decode's wall time, in ms, which is longer when it waited
    /// for a look on another core; found: each code's text, its box's centre, width and height).
    var costs = false
    /// The frames to decode, from an earlier run's `--costs` lines (their pass and frame): the same
    /// frames again, whatever each decode costs now.
    var schedule: Set<[Int]>?

    init(arguments: [String]) throws {
        var passes: [String] = []
        var background: String?
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw ReplayError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--fps": fps = Double(try value()) ?? 0
            case "--grace": grace = Double(try value()) ?? -1
            case "--load": load = Double(try value()) ?? -1
            case "--background": background = try value()
            case "--costs": costs = true
            case "--wall": wall = true
            case "--schedule": schedule = try Self.decodedFrames(in: try value())
            default: passes.append(arguments[index])
            }
            index += 1
        }
        guard let background, !passes.isEmpty, fps > 0, grace >= 0, load >= 0 else {
            throw ReplayError(
                "usage: decode-bench stream --background FILE [--fps 30] [--grace 0.5] [--load 0 [--wall] | --schedule FILE] [--costs] PASS_DIR...")
        }
        self.passes = passes
        self.background = background
    }

    struct ReplayError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func run() throws {
        var pipeline = ReadPipeline(config: PipelineConfig())
        if let error = pipeline.decoderError { throw error }
        let counter = try ImageFile.read(path: background)
        let graceFrames = Int((grace * fps).rounded())
        // The frame clock: frame n arrives at n / fps; the pipeline is free again at `free`, and
        // takes the newest frame that arrived meanwhile.
        var tick = 0
        var free = 0.0
        var newest: (frame: Frame, arrival: Double, pass: Int, index: Int)?
        var decoded: [Int: Int] = [:]
        let output = FileHandle.standardOutput

        func emit(_ object: [String: Any]) {
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
            output.write(data + Data("\n".utf8))
        }

        func decode(_ frame: Frame, arrival: Double, start: Double, pass: Int, index: Int) {
            let (started, wallStarted) = (Self.threadSeconds(), Self.seconds(CLOCK_MONOTONIC))
            let outcome = pipeline.process(frame, at: Instant(seconds: 1 + arrival), scanning: true)
            let (seconds, wall) = (Self.threadSeconds() - started, Self.seconds(CLOCK_MONOTONIC) - wallStarted)
            free = start + load * (self.wall ? wall : seconds)
            if let error = outcome.error { FileHandle.standardError.write(Data("pass \(pass) frame \(index): \(error)\n".utf8)) }
            if let symbols = outcome.symbols {
                decoded[pass, default: 0] += 1
                if costs {
                    // Each code found: its text, the centre of its box and its width and height.
                    let found = symbols.map { symbol -> [Any] in
                        let box = symbol.corners.bounds
                        return [String(decoding: symbol.bytes, as: UTF8.self), box.x + box.width / 2, box.y + box.height / 2, box.width, box.height]
                    }
                    var line: [String: Any] = [
                        "pass": pass, "frame": index, "ms": (seconds * 1e5).rounded() / 100, "wall": (wall * 1e5).rounded() / 100, "found": found,
                    ]
                    line["look"] = outcome.pass.map { "\($0)" }
                    line["scene"] = outcome.sceneVelocity.map { [($0.x * 10).rounded() / 10, ($0.y * 10).rounded() / 10] }
                    emit(line)
                }
            }
            for read in outcome.reads { emit(["pass": pass, "frame": index, "symbology": read.symbology, "text": read.shownText]) }
        }

        /// The camera delivers `frame` (pass -1: the counter before the first pass).
        func deliver(_ frame: Frame, pass: Int, index: Int) {
            let arrival = Double(tick) / fps
            tick += 1
            if let schedule {
                if schedule.contains([pass, index]) { decode(frame, arrival: arrival, start: arrival, pass: pass, index: index) }
                return
            }
            if let waiting = newest, free <= arrival {
                newest = nil
                decode(waiting.frame, arrival: waiting.arrival, start: free, pass: waiting.pass, index: waiting.index)
            }
            if free <= arrival {
                decode(frame, arrival: arrival, start: arrival, pass: pass, index: index)
            } else {
                newest = (frame, arrival, pass, index)
            }
        }

        for index in 0..<graceFrames { deliver(counter, pass: -1, index: index - graceFrames) }
        for (number, directory) in passes.enumerated() {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".pgm") }.sorted()
            for (index, name) in names.enumerated() { deliver(try ImageFile.read(path: "\(directory)/\(name)"), pass: number, index: index) }
            // The counter after the pass: late reads count for it.
            for index in 0..<graceFrames { deliver(counter, pass: number, index: names.count + index) }
            emit(["pass": number, "frames": names.count])
        }
        emit(["decoded": passes.indices.map { decoded[$0, default: 0] }])
    }

    /// The (pass, frame) pairs of the `--costs` lines in the file at `path`.
    static func decodedFrames(in path: String) throws -> Set<[Int]> {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ReplayError("cannot read \(path)") }
        var frames: Set<[Int]> = []
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["ms"] != nil,
                let pass = object["pass"] as? Int, let frame = object["frame"] as? Int
            else { continue }
            frames.insert([pass, frame])
        }
        return frames
    }

    /// The calling thread's CPU time, in seconds.
    static func threadSeconds() -> Double { seconds(CLOCK_THREAD_CPUTIME_ID) }

    /// `clock`'s time, in seconds.
    static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
