import CLibcameraAPI
import Codes
import FoundationEssentials
import Imaging
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A camera through libcamera (`camera.device: libcamera` or `libcamera:ID`): a Raspberry Pi
/// camera module on the CSI ribbon, or any camera a libcamera pipeline handler serves (UVC too).
///
/// libcamera is C++; `libkiosk-scanner-libcamera.so` (Sources/KSLibcamera) puts a C table over it,
/// loaded with dlopen the first time a libcamera camera is opened, so the daemon maps libcamera
/// and the 20 or so libraries it brings only when it uses them.
public final class LibcameraSource: FrameSource {
    private let api: UnsafePointer<ks_lc_api>
    private var camera: OpaquePointer?
    private var luma: LumaExtractor?
    /// Where next() writes why it failed; kept, so that a frame costs no allocation.
    private var message = [CChar](repeating: 0, count: 256)
    private let device: String
    public private(set) var status: CameraStatus
    public private(set) var skippedFrames = 0

    /// Opens, configures and starts the camera named by `id` ("" for the first); throws the
    /// state it is in (unavailable, busy, permission denied, unsupported).
    public init(id: String, config: CameraConfig, logger: Logger, library: LibcameraLibrary = .shared) throws(CameraError) {
        let wanted = id.isEmpty ? "libcamera" : "libcamera:\(id)"
        let api = try library.api(device: wanted)
        self.api = api
        var result = Int32(KS_LC_OK.rawValue)
        var message = [CChar](repeating: 0, count: 512)
        // The C strings live for the call only: open copies what it keeps.
        let names = config.controls.keys.sorted()
        let cNames = names.map { strdup($0) }
        defer { for name in cNames { free(name) } }
        let controls = zip(cNames, names).map { ks_lc_control(name: $0.0, value: config.controls[$0.1]!) }
        let opened = id.withCString { cID in
            controls.withUnsafeBufferPointer { list in
                var settings = ks_lc_settings(
                    camera_id: cID, width: Int32(config.width), height: Int32(config.height), fps: Int32(config.fps),
                    autofocus: Int32(Self.autofocus(config.autofocus).rawValue), lens_position: config.lensPosition ?? -1,
                    controls: list.baseAddress, ncontrols: Int32(list.count))
                return api.pointee.open!(&settings, &result, &message, message.count)
            }
        }
        guard let opened else {
            throw CameraError(state: Self.state(ofOpenFailure: result), device: wanted, detail: text(message))
        }
        camera = opened
        device = "libcamera:" + text(api.pointee.camera_id!(opened))
        let format = text(api.pointee.describe!(opened))
        for note in text(api.pointee.notes!(opened)).split(separator: "\n") {
            logger.warning("\(note)", metadata: ["camera": "\(device)"])
        }
        logger.info("libcamera \(text(api.pointee.version)) camera \(device): \(format)")
        status = CameraStatus(state: .streaming, device: device, format: "\(format) (libcamera)")
    }

    deinit { close() }

    public func nextFrame(timeoutMilliseconds: Int32) throws(CameraError) -> Frame? {
        guard let camera else { return nil }
        var frame = ks_lc_frame()
        let result = api.pointee.next!(camera, timeoutMilliseconds, &frame, &message, message.count)
        switch ks_lc_result(UInt32(result)) {
        case KS_LC_OK:
            skippedFrames += Int(frame.skipped)
            return self.frame(from: frame)
        case KS_LC_TIMEOUT:
            return nil
        default:
            // Removed (libcamera's cameraRemoved or the camera's disconnected) or failed.
            throw CameraError(state: .interrupted, device: device, detail: text(message))
        }
    }

    public func close() {
        guard let camera else { return }
        self.camera = nil
        luma = nil
        api.pointee.close!(camera)
    }

    /// The stream's format and size are fixed from open to close: the extractor is made for the
    /// first frame and kept.
    private func frame(from frame: ks_lc_frame) -> Frame? {
        guard let data = frame.data else { return nil }
        if luma == nil {
            guard let format = PixelFormat.allCases.first(where: { $0.fourcc == frame.fourcc }) else { return nil }
            let width = Int(frame.width)
            let bytesPerLine = max(Int(frame.stride), format.luma.isPacked ? width * 2 : width)
            luma = LumaExtractor(format: format, width: width, height: Int(frame.height), bytesPerLine: bytesPerLine)
        }
        return luma?.frame(in: data, length: frame.length, used: frame.used, timestamp: frame.timestamp_ns, sequence: frame.sequence)
    }

    static func autofocus(_ mode: CameraConfig.Autofocus) -> ks_lc_autofocus {
        switch mode {
        case .continuous: KS_LC_AF_CONTINUOUS
        case .auto: KS_LC_AF_AUTO
        case .manual: KS_LC_AF_MANUAL
        case .off: KS_LC_AF_OFF
        }
    }

    static func state(ofOpenFailure result: Int32) -> CameraState {
        switch ks_lc_result(UInt32(result)) {
        case KS_LC_BUSY: .busy
        case KS_LC_DENIED: .permissionDenied
        case KS_LC_UNSUPPORTED: .unsupported
        default: .unavailable
        }
    }
}

/// libkiosk-scanner-libcamera.so, loaded once per process (never unloaded: libcamera keeps threads
/// and static state).
/// Immutable after init: the table is a static in the loaded library.
public final class LibcameraLibrary: @unchecked Sendable {
    public static let fileName = "libkiosk-scanner-libcamera.so"
    /// The package's directory for it.
    public static let packagedPath = "/usr/lib/kiosk-scanner/\(fileName)"
    public static let shared = LibcameraLibrary()

    private let loaded: Result<UnsafePointer<ks_lc_api>, LoadError>

    struct LoadError: Error {
        let detail: String
    }

    /// Loads the first of: `$KS_LIBCAMERA_SHIM`, the file beside the executable (a build tree),
    /// the package's directory.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        var candidates: [String] = []
        if let path = environment["KS_LIBCAMERA_SHIM"], !path.isEmpty {
            candidates = [path]
        } else {
            if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                candidates.append(String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)]) + "/" + Self.fileName)
            }
            candidates.append(Self.packagedPath)
        }
        loaded = Self.load(candidates.first { access($0, F_OK) == 0 } ?? candidates.last!)
    }

    private static func load(_ path: String) -> Result<UnsafePointer<ks_lc_api>, LoadError> {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = text(dlerror())
            let hint =
                access(path, F_OK) != 0
                ? "libcamera support is not installed (\(path) is missing)"
                : "cannot load \(path): \(reason); is libcamera installed (libcamera0.0.3 on Debian 12)?"
            return .failure(LoadError(detail: hint))
        }
        guard let symbol = dlsym(handle, "ks_libcamera_api") else {
            return .failure(LoadError(detail: "\(path) has no ks_libcamera_api: not a kiosk-scanner libcamera library"))
        }
        typealias Entry = @convention(c) () -> UnsafePointer<ks_lc_api>?
        guard let api = unsafeBitCast(symbol, to: Entry.self)() else {
            return .failure(LoadError(detail: "\(path) gave no function table"))
        }
        let table = api.pointee
        guard table.abi == KS_LC_ABI else {
            return .failure(LoadError(detail: "\(path) speaks ABI \(table.abi), this daemon \(KS_LC_ABI): install both from one build"))
        }
        guard table.open != nil, table.next != nil, table.camera_id != nil, table.describe != nil, table.notes != nil, table.close != nil else {
            return .failure(LoadError(detail: "\(path) has an incomplete function table"))
        }
        return .success(api)
    }

    func api(device: String) throws(CameraError) -> UnsafePointer<ks_lc_api> {
        switch loaded {
        case .success(let api): return api
        case .failure(let error): throw CameraError(state: .unsupported, device: device, detail: error.detail)
        }
    }
}

/// A C string from the library ("" for NULL).
private func text(_ pointer: UnsafePointer<CChar>?) -> String {
    guard let pointer else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

/// A message buffer the library filled, up to its terminating NUL.
private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
