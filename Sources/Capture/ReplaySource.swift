import Codes
import FoundationEssentials
import Glibc
import ImageFiles
import Imaging
import Platform

/// Plays the images of a directory (PNG, JPEG, PGM/PPM, sorted by name) as a camera at a set fps,
/// looping. The demo default, and a way to replay a field recording at a desk: a directory made by
/// `kiosk-scanner record` has an `index.json`, and its frames play in its order at their recorded pace.
public final class ReplaySource: FrameSource {
    private let frames: [Frame]
    private let period: UInt64
    /// For a recording: the pause after each frame, taken from the recorded timestamps.
    private let pauses: [UInt64]?
    private var next = 0
    private var due: UInt64
    private var sequence: UInt64 = 0
    public private(set) var status: CameraStatus
    public private(set) var skippedFrames = 0

    /// Loads every image of `directory` up front, so playback costs no decoding.
    public init(directory: String, fps: Int) throws(CameraError) {
        var names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw CameraError(state: .unavailable, device: "replay:\(directory)", detail: "cannot list replay directory \(directory)")
        }
        let recording = try Self.recording(in: directory)
        if let recording { names = recording.frames.map(\.file) }
        var frames: [Frame] = []
        for name in names where ["png", "jpg", "jpeg", "pgm", "ppm", "pbm", "pnm"].contains(name.split(separator: ".").last?.lowercased() ?? "") {
            do {
                frames.append(try ImageFile.read(path: "\(directory)/\(name)"))
            } catch {
                throw CameraError(state: .unsupported, device: "replay:\(directory)", detail: "\(error)")
            }
        }
        guard let first = frames.first else {
            throw CameraError(state: .unavailable, device: "replay:\(directory)", detail: "no images in replay directory \(directory)")
        }
        self.frames = frames
        self.period = 1_000_000_000 / UInt64(max(fps, 1))
        self.pauses = recording.map { recording in
            let times = recording.frames.map(\.timestampNs)
            let gaps = zip(times, times.dropFirst()).map { $1 > $0 ? min($1 - $0, 1_000_000_000) : 0 }
            // After the last frame, the loop restarts after a typical gap.
            return gaps + [gaps.sorted().dropFirst(gaps.count / 2).first ?? 1_000_000_000 / UInt64(max(fps, 1))]
        }
        self.due = MonotonicClock.nanoseconds()
        status = CameraStatus(state: .streaming, device: "replay:\(directory)", format: "replay \(frames.count) images \(first.width)x\(first.height) @\(fps)")
    }

    public func nextFrame(timeoutMilliseconds: Int32) throws(CameraError) -> Frame? {
        let now = MonotonicClock.nanoseconds()
        if due > now {
            let wait = min(due - now, UInt64(timeoutMilliseconds) * 1_000_000)
            var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
            nanosleep(&request, nil)
            if MonotonicClock.nanoseconds() < due { return nil }
        }
        if let pauses {
            // A recording plays every frame, in order, however late: it is there to reproduce reads.
            let image = frames[next]
            due = max(due + pauses[next], MonotonicClock.nanoseconds() - 1_000_000_000)
            next = (next + 1) % frames.count
            sequence += 1
            return Frame(
                width: image.width, height: image.height, stride: image.stride, timestamp: MonotonicClock.nanoseconds(), sequence: sequence,
                storage: image.storage)
        }
        // Late frames are skipped, as a camera drops what nobody dequeued.
        let late = (MonotonicClock.nanoseconds() - due) / period
        skippedFrames += Int(late)
        next = (next + Int(late % UInt64(frames.count))) % frames.count
        due += (late + 1) * period
        let image = frames[next]
        next = (next + 1) % frames.count
        sequence += 1
        return Frame(
            width: image.width, height: image.height, stride: image.stride, timestamp: MonotonicClock.nanoseconds(), sequence: sequence, storage: image.storage)
    }

    public func close() {}

    static func recording(in directory: String) throws(CameraError) -> RecordingIndex? {
        guard let data = FileManager.default.contents(atPath: "\(directory)/index.json") else { return nil }
        do {
            let recording = try JSONDecoder.forEvents().decode(RecordingIndex.self, from: data)
            guard recording.frames.allSatisfy({ !$0.file.contains("/") }) else {
                throw CameraError(state: .unsupported, device: "replay:\(directory)", detail: "\(directory)/index.json names a file outside the directory")
            }
            return recording
        } catch let error as CameraError {
            throw error
        } catch {
            throw CameraError(state: .unsupported, device: "replay:\(directory)", detail: "\(directory)/index.json is not a recording index: \(error)")
        }
    }
}
