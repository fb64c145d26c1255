import Codes

/// `index.json` of a recording (`kiosk-scanner record DIR`): each frame's file, capture time and the
/// reads the daemon made from it. `replay:DIR` plays the frames in its order at their recorded pace.
public struct RecordingIndex: Codable, Sendable {
    public struct Entry: Codable, Sendable {
        /// A file name in the recording's directory.
        public let file: String
        public let sequence: UInt64
        /// CLOCK_MONOTONIC nanoseconds at capture.
        public let timestampNs: UInt64
        public let reads: [Read]

        public init(file: String, sequence: UInt64, timestampNs: UInt64, reads: [Read]) {
            self.file = file
            self.sequence = sequence
            self.timestampNs = timestampNs
            self.reads = reads
        }

        enum CodingKeys: String, CodingKey {
            case file, sequence
            case timestampNs = "timestamp_ns"
            case reads
        }

        /// Replay needs only `file` and `timestamp_ns`: an index made by hand may leave the rest out.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            file = try container.decode(String.self, forKey: .file)
            timestampNs = try container.decode(UInt64.self, forKey: .timestampNs)
            sequence = try container.decodeIfPresent(UInt64.self, forKey: .sequence) ?? 0
            reads = try container.decodeIfPresent([Read].self, forKey: .reads) ?? []
        }
    }

    public var version = 1
    public var frames: [Entry] = []
    /// Frames the daemon sent that the recorder could not keep up with.
    public var missedFrames = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case version, frames
        case missedFrames = "missed_frames"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        frames = try container.decode([Entry].self, forKey: .frames)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        missedFrames = try container.decodeIfPresent(Int.self, forKey: .missedFrames) ?? 0
    }
}
