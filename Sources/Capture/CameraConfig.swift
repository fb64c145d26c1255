/// Where frames come from and how they are asked for.
public struct CameraConfig: Sendable, Hashable {
    /// A device path (`/dev/video0`, `/dev/v4l/by-id/...`), `auto` for the first capture device,
    /// `libcamera` (its first camera) or `libcamera:ID`, or `replay:DIR` to play a directory of images.
    public var device = "auto"
    public var width = 640
    public var height = 480
    public var fps = 30
    /// Controls by name: V4L2's as `v4l2-ctl --list-ctrls` prints them (`focus_absolute: 0`,
    /// whole numbers), or libcamera's for a libcamera camera (`ExposureTime: 8000`, `AnalogueGain: 2.5`).
    public var controls: [String: Double] = [:]
    /// libcamera cameras only: how the lens focuses (`AfMode`).
    public var autofocus = Autofocus.continuous
    /// libcamera cameras only: the lens position in dioptres (1/metres; 0 is infinity) for
    /// `autofocus: manual`; nil leaves the lens where it is.
    public var lensPosition: Double?

    /// For `libcamera` or `libcamera:ID`, the camera's id ("" for the first camera); nil for any other device.
    public var libcameraID: String? { Self.libcameraID(of: device) }

    /// The libcamera camera id a `camera.device` setting names, as `libcameraID`.
    public static func libcameraID(of device: String) -> String? {
        if device == "libcamera" { return "" }
        return device.hasPrefix("libcamera:") ? String(device.dropFirst("libcamera:".count)) : nil
    }

    public enum Autofocus: String, Sendable, Hashable, CaseIterable {
        /// Continuous autofocus where the camera has it; a fixed-focus camera is left as it is.
        case continuous
        /// One focus sweep when streaming starts.
        case auto
        /// The lens at `lens_position`.
        case manual
        /// Nothing set: the camera's own default.
        case off
    }

    public init() {}
}
