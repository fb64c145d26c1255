import Codes
import FoundationEssentials
import Imaging

/// The events a `watch` connection gets: what the camera sees, scaled down for a console, and what
/// became of every read.
extension Event {
    /// `{"type":"view", ...}`: one view, its JPEG in `jpeg` (base64).
    public static func view(_ view: ViewEvent, jpeg: [UInt8], encoder: JSONEncoder) -> String {
        filling("jpeg", in: json(view, encoder: encoder), with: jpeg)
    }

    /// `{"type":"outcome","seq":S,"symbology":...,"text":...,"outcome":...,"reason":...}`.
    public static func outcome(_ outcome: OutcomeEvent, encoder: JSONEncoder) -> String {
        json(outcome, encoder: encoder)
    }
}

/// `{"type":"view", ...}`: a frame as a console shows it, in the coordinates of the scaled image.
public struct ViewEvent: Codable, Sendable {
    public var type = "view"
    /// Counts this watch's views from 1.
    public let seq: UInt64
    /// The camera's frame.
    public let frameWidth: Int, frameHeight: Int
    /// The JPEG's size: the frame scaled down to the width the watch asked for (never up).
    public let width: Int, height: Int
    public let viewport: PixelRect
    /// The codes the scanner saw in this frame.
    public let codes: [ViewCode]
    /// Base64; the daemon encodes it empty and fills it in (`Event.view`).
    public let jpeg: String

    /// A view of a `frame`-sized camera frame, scaled to `image`, its JPEG filled in later.
    public init(seq: UInt64, frame: Size, image: Size, viewport: PixelRect, codes: [ViewCode]) {
        (self.seq, self.viewport, self.codes, jpeg) = (seq, viewport, codes, "")
        (frameWidth, frameHeight) = (frame.width, frame.height)
        (width, height) = (image.width, image.height)
    }

    enum CodingKeys: String, CodingKey {
        case type, seq
        case frameWidth = "frame_width"
        case frameHeight = "frame_height"
        case width, height, viewport, codes, jpeg
    }
}

/// A code in a view: its symbology, its text, and its four corners as `[x, y]` pairs.
public struct ViewCode: Codable, Sendable, Equatable {
    /// The zbarimg-style name, e.g. "EAN-13".
    public let symbology: String
    /// As a read's `text`: absent for binary data and for a kiosk document's withheld raw data.
    public let text: String?
    /// The symbol's own top-left first, clockwise.
    public let corners: [[Int]]

    public init(symbology: String, text: String?, corners: [[Int]]) {
        self.symbology = symbology
        self.text = text
        self.corners = corners
    }
}

/// `{"type":"outcome", ...}`: what became of a read at the socket, sent to watchers as it happens.
/// A read may have several in turn: held, then delivered.
public struct OutcomeEvent: Codable, Sendable, Equatable {
    /// What became of the read.
    public enum Outcome: String, Codable, Sendable {
        /// A consumer read it (or acked it).
        case delivered
        /// No consumer took it: it waits in the hold queue.
        case held
        /// It will never be delivered (`reason` says why, as the `dropped` counter does).
        case dropped
        /// A consumer refused it (`nak`).
        case rejected
    }

    public var type = "outcome"
    public let seq: UInt64
    public let symbology: String
    /// As the read's `text`.
    public let text: String?
    public let outcome: Outcome
    /// Why it was held or dropped (or the nak's reason).
    public let reason: String?

    public init(seq: UInt64, symbology: String, text: String?, outcome: Outcome, reason: String? = nil) {
        self.seq = seq
        self.symbology = symbology
        self.text = text
        self.outcome = outcome
        self.reason = reason
    }
}
