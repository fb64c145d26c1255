import Codes
import Imaging
import SystemPackage

/// Why a frame source cannot deliver frames, as the camera state it puts the scanner in.
public struct CameraError: Error, CustomStringConvertible, Sendable {
    public let state: CameraState
    public let device: String
    /// What went wrong and the likely fix.
    public let detail: String

    public init(state: CameraState, device: String, detail: String) {
        self.state = state
        self.device = device
        self.detail = detail
    }

    /// Maps an errno from opening or streaming to a state, with a hint an installer can act on.
    public init(errno: Errno, device: String, during action: String, streaming: Bool) {
        self.device = device
        switch errno {
        case .noSuchFileOrDirectory where !streaming, .noSuchAddressOrDevice where !streaming:
            state = .unavailable
            detail = "\(device) does not exist: is the camera plugged in? (\(action): \(errno))"
        case .resourceBusy where !streaming:
            state = .busy
            detail = "\(device) is in use by another process (\(action): \(errno)); `fuser \(device)` shows which"
        case .permissionDenied, .notPermitted:
            state = .permissionDenied
            detail = "no permission to open \(device) (\(action): \(errno)); add the daemon's user to the 'video' group"
        default:
            state = .interrupted
            detail = "\(device) went away (\(action): \(errno))"
        }
    }

    public var description: String { "\(state.rawValue): \(detail)" }
}

/// Somewhere frames come from: a camera, or a directory of images played back.
public protocol FrameSource: AnyObject {
    /// The source's state, device and negotiated format.
    var status: CameraStatus { get }
    /// Waits at most `timeoutMilliseconds` for the newest frame; nil when none came in time.
    /// The frame stays valid until the next call or `close()`, whichever comes first.
    func nextFrame(timeoutMilliseconds: Int32) throws(CameraError) -> Frame?
    /// Frames that were ready but skipped because a newer one was ready too (latest frame wins).
    var skippedFrames: Int { get }
    /// Stops streaming and gives back every buffer, mapping and descriptor.
    func close()
}
