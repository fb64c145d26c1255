import FoundationEssentials
import Glibc
import Logging

/// Turns `camera.device` into an open frame source: a path, `auto`, `libcamera[:ID]`, or `replay:DIR`.
public enum SourceOpener {
    /// What `camera.device` names.
    public enum Target: Sendable, Equatable {
        case device(String)
        case firstCaptureDevice
        case replay(String)
        /// A libcamera camera by id; "" for the first.
        case libcamera(String)

        public init(_ setting: String) {
            if let id = CameraConfig.libcameraID(of: setting) {
                self = .libcamera(id)
            } else if setting == "auto" {
                self = .firstCaptureDevice
            } else if setting.hasPrefix("replay:") {
                self = .replay(String(setting.dropFirst("replay:".count)))
            } else {
                self = .device(setting)
            }
        }

        /// The path to watch while waiting for the device.
        public var watchPath: String {
            switch self {
            case .device(let path): path
            case .firstCaptureDevice: "/dev/video0"
            case .replay(let directory): directory
            // libcamera finds its cameras itself: a change in /dev (a media node) is worth a look.
            case .libcamera: "/dev/media"
            }
        }
    }

    /// Opens the configured source, or throws the state it is in.
    public static func open(_ config: CameraConfig, logger: Logger) throws(CameraError) -> any FrameSource {
        switch Target(config.device) {
        case .replay(let directory):
            return try ReplaySource(directory: directory, fps: config.fps)
        case .device(let path):
            return try V4L2Camera(path: path, config: config, logger: logger)
        case .libcamera(let id):
            return try LibcameraSource(id: id, config: config, logger: logger)
        case .firstCaptureDevice:
            let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [])
                .filter { $0.hasPrefix("video") }
                .sorted { (Int($0.dropFirst(5)) ?? .max) < (Int($1.dropFirst(5)) ?? .max) }
            var lastError = CameraError(state: .unavailable, device: "auto", detail: "no /dev/video* device: is a camera plugged in?")
            for node in nodes {
                do {
                    return try V4L2Camera(path: "/dev/\(node)", config: config, logger: logger)
                } catch {
                    // Metadata nodes and busy cameras are skipped; the last reason is kept.
                    lastError = error
                }
            }
            throw lastError
        }
    }
}
