import SystemPackage

/// Writes `line` and a newline to `fd` whole (swift-system retries on EINTR); stops quietly at an
/// error (a closed pipe or socket), which the next read or the exit status reports. One write call
/// carries a short line, so lines from several threads do not interleave.
public func writeLine(_ line: String, to file: FileDescriptor) {
    _ = try? file.writeAll((line + "\n").utf8)
}
