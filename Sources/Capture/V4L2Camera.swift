import CV4L2
import Imaging
import Logging
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A V4L2 camera streaming from mmap buffers, always handing out the newest frame.
public final class V4L2Camera: FrameSource {
    private struct Buffer {
        let pointer: UnsafeMutableRawPointer
        let length: Int
    }

    private let device: V4L2Device
    private let luma: LumaExtractor
    private var buffers: [Buffer] = []
    /// The buffer behind the frame last handed out; queued again on the next call.
    private var held: UInt32?
    private var closed = false
    public private(set) var status: CameraStatus
    /// Frames that were ready but older than a newer one, skipped unread.
    public private(set) var skippedFrames = 0

    /// Opens `path`, negotiates a format near the config, sets controls and starts streaming.
    public init(path: String, config: CameraConfig, bufferCount: Int = 4, logger: Logger) throws(CameraError) {
        let handle: V4L2Device
        do {
            handle = try V4L2Device.open(path)
        } catch {
            throw CameraError(errno: error, device: path, during: "open", streaming: false)
        }
        let negotiated: Negotiated
        do {
            negotiated = try Self.negotiate(handle, config: config, logger: logger)
        } catch {
            handle.close()
            throw error
        }
        device = handle
        luma = LumaExtractor(format: negotiated.format, width: negotiated.width, height: negotiated.height, bytesPerLine: negotiated.bytesPerLine)
        status = CameraStatus(state: .available, device: path, format: negotiated.description)
        do {
            try allocateBuffers(count: bufferCount)
            var type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            try device.ioctl(KS_VIDIOC_STREAMON, &type)
        } catch {
            close()
            throw CameraError(errno: error, device: path, during: "streaming setup", streaming: false)
        }
        status.state = .streaming
    }

    /// What the driver agreed to.
    private struct Negotiated {
        let format: PixelFormat
        let width: Int, height: Int, bytesPerLine: Int
        let description: String
    }

    private static func negotiate(_ device: V4L2Device, config: CameraConfig, logger: Logger) throws(CameraError) -> Negotiated {
        let path = device.path
        var capability = v4l2_capability()
        do {
            try device.ioctl(KS_VIDIOC_QUERYCAP, &capability)
        } catch {
            throw CameraError(errno: error, device: path, during: "VIDIOC_QUERYCAP", streaming: false)
        }
        let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else {
            throw CameraError(
                state: .unsupported, device: path, detail: "\(path) is not a streaming capture device (a metadata node? try the other /dev/video*)")
        }
        let offered = offeredFormats(device)
        guard let chosen = PixelFormat.preferred(among: offered) else {
            let names = offered.map(PixelFormat.name).joined(separator: ", ")
            throw CameraError(state: .unsupported, device: path, detail: "\(path) offers no format we read (offers: \(names))")
        }
        var requested = v4l2_format()
        requested.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        requested.fmt.pix.width = UInt32(config.width)
        requested.fmt.pix.height = UInt32(config.height)
        requested.fmt.pix.pixelformat = chosen.fourcc
        requested.fmt.pix.field = V4L2_FIELD_ANY.rawValue
        do {
            try device.ioctl(KS_VIDIOC_S_FMT, &requested)
        } catch {
            throw CameraError(errno: error, device: path, during: "VIDIOC_S_FMT", streaming: false)
        }
        guard let actual = PixelFormat.allCases.first(where: { $0.fourcc == requested.fmt.pix.pixelformat }) else {
            throw CameraError(state: .unsupported, device: path, detail: "driver switched to \(PixelFormat.name(requested.fmt.pix.pixelformat))")
        }
        let width = Int(requested.fmt.pix.width)
        let height = Int(requested.fmt.pix.height)
        let bytesPerLine = max(Int(requested.fmt.pix.bytesperline), actual.luma.isPacked ? width * 2 : width)
        let fps = setFrameRate(device, fps: config.fps)
        applyControls(device, config.controls, logger: logger)
        return Negotiated(
            format: actual, width: width, height: height, bytesPerLine: bytesPerLine,
            description: "\(PixelFormat.name(actual.fourcc)) \(width)x\(height) @\(fps)")
    }

    deinit { close() }

    public func nextFrame(timeoutMilliseconds: Int32) throws(CameraError) -> Frame? {
        func lost(_ error: Errno, _ action: String) -> CameraError {
            CameraError(errno: error, device: device.path, during: action, streaming: true)
        }
        if let index = held {
            held = nil
            do { try queue(index) } catch { throw lost(error, "VIDIOC_QBUF") }
        }
        let events: Int16
        do { events = try device.poll(timeoutMilliseconds: timeoutMilliseconds) } catch { throw lost(error, "poll") }
        if events & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
            throw CameraError(state: .interrupted, device: device.path, detail: "\(device.path) went away (poll: \(Self.describe(events)))")
        }
        guard events & Int16(POLLIN) != 0 else { return nil }

        // Take every ready buffer and keep only the newest: decoding never works on a stale frame.
        // After the first, ask poll (not a failing VIDIOC_DQBUF, which libv4l2 prints) whether
        // another is ready.
        var newest: v4l2_buffer?
        while true {
            if newest != nil {
                let more: Int16
                do { more = try device.poll(timeoutMilliseconds: 0) } catch { throw lost(error, "poll") }
                guard more & Int16(POLLIN) != 0 else { break }
            }
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            do {
                try device.ioctl(KS_VIDIOC_DQBUF, &buffer)
            } catch .resourceTemporarilyUnavailable {
                break
            } catch {
                throw lost(error, "VIDIOC_DQBUF")
            }
            if let older = newest {
                skippedFrames += 1
                do { try queue(older.index) } catch { throw lost(error, "VIDIOC_QBUF") }
            }
            newest = buffer
        }
        guard let buffer = newest else { return nil }
        held = buffer.index
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 { return nil }
        return frame(from: buffer)
    }

    public func close() {
        guard !closed else { return }
        closed = true
        var type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try? device.ioctl(KS_VIDIOC_STREAMOFF, &type)
        releaseBuffers()
        device.close()
    }

    private func frame(from buffer: v4l2_buffer) -> Frame? {
        let mapped = buffers[Int(buffer.index)]
        let timestamp = UInt64(buffer.timestamp.tv_sec) * 1_000_000_000 + UInt64(buffer.timestamp.tv_usec) * 1000
        return luma.frame(in: mapped.pointer, length: mapped.length, used: Int(buffer.bytesused), timestamp: timestamp, sequence: UInt64(buffer.sequence))
    }

    private func queue(_ index: UInt32) throws(Errno) {
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        buffer.index = index
        try device.ioctl(KS_VIDIOC_QBUF, &buffer)
    }

    private func allocateBuffers(count: Int) throws(Errno) {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try device.ioctl(KS_VIDIOC_REQBUFS, &request)
        guard request.count >= 2 else { throw Errno.noMemory }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            buffer.index = index
            try device.ioctl(KS_VIDIOC_QUERYBUF, &buffer)
            let pointer = try device.map(length: Int(buffer.length), offset: Int(buffer.m.offset))
            buffers.append(Buffer(pointer: pointer, length: Int(buffer.length)))
            try queue(index)
        }
    }

    private func releaseBuffers() {
        for buffer in buffers { device.unmap(buffer.pointer, length: buffer.length) }
        buffers.removeAll()
        var request = v4l2_requestbuffers()
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try? device.ioctl(KS_VIDIOC_REQBUFS, &request)
    }

    /// The formats the camera offers itself, or when we read none of those, the ones libv4l2
    /// converts to. libv4l2 lists its conversions (YU12, RGB3...) beside the camera's formats, and
    /// a conversion of YUYV or MJPG costs more than our own luma pass or JPEG decode (its JPEG
    /// decoder also held a daemon's capture thread past SIGTERM in the rig).
    static func offeredFormats(_ device: V4L2Device) -> [UInt32] {
        var native: [UInt32] = []
        var emulated: [UInt32] = []
        for index in 0..<64 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard (try? device.ioctl(KS_VIDIOC_ENUM_FMT, &description)) != nil else { break }
            if description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0 {
                emulated.append(description.pixelformat)
            } else {
                native.append(description.pixelformat)
            }
        }
        return PixelFormat.preferred(among: native) != nil ? native : native + emulated
    }

    /// Asks for `fps`; returns what the driver settled on (or the request, when it cannot say).
    private static func setFrameRate(_ device: V4L2Device, fps: Int) -> Int {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(fps))
        guard (try? device.ioctl(KS_VIDIOC_S_PARM, &parameters)) != nil else { return fps }
        let fraction = parameters.parm.capture.timeperframe
        return fraction.numerator > 0 ? Int(fraction.denominator / fraction.numerator) : fps
    }

    private static func describe(_ events: Int16) -> String {
        [(POLLERR, "POLLERR"), (POLLHUP, "POLLHUP"), (POLLNVAL, "POLLNVAL")].filter { events & Int16($0.0) != 0 }.map(\.1).joined(separator: "|")
    }
}

extension PixelFormat.Luma {
    var isPacked: Bool {
        if case .packed = self { return true }
        return false
    }
}
