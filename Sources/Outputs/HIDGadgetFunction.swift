import FoundationEssentials
import Glibc
import SystemPackage

/// One HID function of the board's USB gadget, `/dev/hidgN`: input reports written to the host,
/// each waiting at most a second for the host to poll, and the output reports the host sent read
/// back. Opened non-blocking, so that a host that stops polling gives a clear error, not a hang.
// Used by its output's thread only.
final class HIDGadgetFunction: OutputDevice {
    let path: String
    /// What the host sees, for messages: "keyboard", "HID POS scanner".
    private let role: String
    private var file: FileDescriptor?
    /// How long one report may wait for the host to poll.
    static let reportTimeoutMilliseconds: Int32 = 1000

    init(path: String, role: String) {
        self.path = path
        self.role = role
    }

    func open() throws(DeviceError) {
        do {
            file = try FileDescriptor.open(path, .readWrite, options: [.nonBlocking, .closeOnExec])
        } catch {
            let reason = "\(error)"
            throw DeviceError(
                kind: .unavailable,
                description: "cannot open \(path): \(reason) (is the HID gadget configured? see hardware.md; the daemon's user needs the input group)")
        }
    }

    /// Writes input reports in order. When `partOfReadSent`, or once the first report is written,
    /// a failure leaves part of the read on the host: it is `stalledMidRead`, not to be sent again.
    func write(_ reports: [[UInt8]], partOfReadSent: Bool) throws(DeviceError) {
        for (index, report) in reports.enumerated() {
            do {
                try write(report)
            } catch  where partOfReadSent || index > 0 {
                throw DeviceError(kind: .stalledMidRead, description: error.description)
            }
        }
    }

    /// Writes one input report whole.
    private func write(_ report: [UInt8]) throws(DeviceError) {
        guard let file else { throw DeviceError(kind: .unavailable, description: "\(path) is not open") }
        var descriptor = pollfd(fd: file.rawValue, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&descriptor, 1, Self.reportTimeoutMilliseconds)
        guard ready > 0, descriptor.revents & Int16(POLLOUT) != 0 else {
            if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw DeviceError(kind: .unavailable, description: "\(path) went away (gadget unbound?)")
            }
            throw DeviceError(
                kind: .stalled,
                description:
                    "the USB host is not polling the \(role) (\(path) not writable for \(Self.reportTimeoutMilliseconds) ms): is the cable in a powered-on PC?"
            )
        }
        let written: Int
        do {
            written = try report.withUnsafeBytes { try file.write($0) }
        } catch Errno.wouldBlock {
            throw DeviceError(kind: .stalled, description: "the USB host is not polling the \(role) (\(path) write would block)")
        } catch {
            throw DeviceError(kind: .unavailable, description: "\(path): write failed: \(error)")
        }
        guard written == report.count else { throw DeviceError(kind: .unavailable, description: "\(path): short write of \(written) bytes") }
    }

    /// The output reports the host sent since the last call, oldest first (one per read).
    func hostReports() -> [[UInt8]] {
        var reports: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while let file, let count = try? buffer.withUnsafeMutableBytes({ try file.read(into: $0) }), count > 0 {
            reports.append(Array(buffer.prefix(count)))
        }
        return reports
    }

    func close() {
        try? file?.close()
        file = nil
    }
}
