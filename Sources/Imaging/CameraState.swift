/// Where the camera stands, as logged, published on the socket and sent to systemd.
public enum CameraState: String, Sendable, Hashable, Codable {
    /// Not opened yet.
    case starting
    /// The device node does not exist (unplugged, or not there yet).
    case unavailable
    /// Another process holds the camera (EBUSY).
    case busy
    /// The daemon may not open the device (EACCES/EPERM).
    case permissionDenied = "permission-denied"
    /// Opened and negotiated, not yet delivering frames.
    case available
    /// Delivering frames.
    case streaming
    /// It was streaming and went away (ENODEV, EIO, POLLERR), or stopped delivering frames.
    case interrupted
    /// Opened, but unusable as configured (no capture capability, no format we can read).
    case unsupported
}

/// A camera state with what an operator needs to act on it.
public struct CameraStatus: Sendable, Hashable, Codable {
    public var state: CameraState
    /// The device path or replay directory.
    public var device: String
    /// What went wrong and the likely fix, when something did.
    public var detail: String?
    /// The negotiated format, e.g. "GREY 640x480 @30".
    public var format: String?

    public init(state: CameraState, device: String, detail: String? = nil, format: String? = nil) {
        self.state = state
        self.device = device
        self.detail = detail
        self.format = format
    }
}
