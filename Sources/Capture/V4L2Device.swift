import CV4L2
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The one seam between the scanner and libv4l2: every libv4l2 call goes through here, and
/// failures come back as `Errno`. Tests replace libv4l2 itself underneath (LD_PRELOAD).
struct V4L2Device {
    let fd: Int32
    let path: String

    /// Opens `path` non-blocking for capture.
    static func open(_ path: String) throws(Errno) -> V4L2Device {
        let fd = ks_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        return V4L2Device(fd: fd, path: path)
    }

    /// Runs one ioctl, retrying on EINTR.
    func ioctl<T>(_ request: UInt, _ argument: inout T) throws(Errno) {
        while true {
            let result = withUnsafeMutablePointer(to: &argument) { ks_v4l2_ioctl(fd, request, $0) }
            if result >= 0 { return }
            let error = Errno(rawValue: errno)
            if error != .interrupted { throw error }
        }
    }

    /// Maps a driver buffer into memory.
    func map(length: Int, offset: Int) throws(Errno) -> UnsafeMutableRawPointer {
        let pointer = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(offset))
        guard let pointer, pointer != MAP_FAILED else { throw Errno(rawValue: errno) }
        return pointer
    }

    func unmap(_ pointer: UnsafeMutableRawPointer, length: Int) {
        _ = v4l2_munmap(pointer, length)
    }

    /// Waits for a frame or an error; returns poll's revents, or 0 on timeout.
    func poll(timeoutMilliseconds: Int32) throws(Errno) -> Int16 {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = Glibc.poll(&descriptor, 1, timeoutMilliseconds)
            if ready >= 0 { return ready == 0 ? 0 : descriptor.revents }
            let error = Errno(rawValue: errno)
            if error != .interrupted { throw error }
        }
    }

    func close() {
        _ = v4l2_close(fd)
    }
}
