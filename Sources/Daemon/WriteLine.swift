import Glibc

/// Writes `line` and a newline to `fd` whole, retrying on EINTR; stops quietly at an error (a
/// closed pipe or socket), which the next read or the exit status reports. One write call carries a
/// short line, so lines from several threads do not interleave.
public func writeLine(_ line: String, to fd: Int32) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return }
        written += count
    }
}
