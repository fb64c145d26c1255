import CUInput
import FoundationEssentials
import Glibc
import Keyboard
import SystemPackage

/// A virtual keyboard made through /dev/uinput: created once, then EV_KEY press and release
/// events, each followed by SYN_REPORT, with Shift (and AltGr) pressed around the key.
// Used by its output's thread only.
final class UInputKeyboard: KeyboardDevice {
    private let path: String
    private var file: FileDescriptor?
    /// The descriptor for ioctl, -1 while closed.
    private var fd: Int32 { file?.rawValue ?? -1 }

    init(path: String) { self.path = path }

    func open() throws(DeviceError) {
        do {
            file = try FileDescriptor.open(path, .writeOnly, options: [.nonBlocking, .closeOnExec])
        } catch {
            let reason = "\(error)"
            throw DeviceError(kind: .unavailable, description: "cannot open \(path): \(reason) (modprobe uinput; the daemon's user needs the input group)")
        }
        var setup = uinput_setup()
        setup.id.bustype = KS_BUS_VIRTUAL
        setup.id.vendor = 0x1209
        setup.id.product = 0x4B53
        setup.id.version = 1
        withUnsafeMutableBytes(of: &setup.name) { name in
            let text = Array("kiosk-scanner keyboard".utf8)
            name.copyBytes(from: text.prefix(name.count - 1))
        }
        let steps: [(String, () -> Int32)] =
            [
                ("UI_SET_EVBIT EV_KEY", { ioctl(self.fd, UInt(KS_UI_SET_EVBIT), Int32(KS_EV_KEY)) }),
                ("UI_SET_EVBIT EV_SYN", { ioctl(self.fd, UInt(KS_UI_SET_EVBIT), Int32(KS_EV_SYN)) }),
            ] + (1..<249).map { code in ("UI_SET_KEYBIT \(code)", { ioctl(self.fd, UInt(KS_UI_SET_KEYBIT), Int32(code)) }) } + [
                ("UI_DEV_SETUP", { ioctl(self.fd, UInt(KS_UI_DEV_SETUP), &setup) }),
                ("UI_DEV_CREATE", { ioctl(self.fd, UInt(KS_UI_DEV_CREATE)) }),
            ]
        for (name, step) in steps where step() < 0 {
            let reason = Errno(rawValue: errno).description
            close()
            throw DeviceError(kind: .unavailable, description: "\(path): \(name) failed: \(reason)")
        }
        waitUntilUsable()
    }

    /// The kernel has the device once UI_DEV_CREATE returns; the session sees it once udev has made
    /// its /dev/input/event node and listeners opened it. Wait for the node, then a moment more.
    private func waitUntilUsable() {
        var name = [CChar](repeating: 0, count: 64)
        guard ioctl(fd, UInt(KS_UI_GET_SYSNAME_64), &name) >= 0 else {
            usleep(500_000)
            return
        }
        let sysname = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let sysfs = "/sys/devices/virtual/input/\(sysname)"
        for _ in 0..<200 {
            let events = (try? FileManager.default.contentsOfDirectory(atPath: sysfs))?.filter { $0.hasPrefix("event") } ?? []
            if let event = events.first, FileManager.default.fileExists(atPath: "/dev/input/\(event)") { break }
            usleep(10_000)
        }
        usleep(200_000)
    }

    func type(_ actions: [KeyAction], delay: Double) throws(DeviceError) {
        for action in actions {
            switch action {
            case .stroke(let key, let modifiers):
                for code in modifiers.codes { try emit(code, 1) }
                try emit(key.code, 1)
                try emit(key.code, 0)
                for code in modifiers.codes.reversed() { try emit(code, 0) }
            case .altCode(let keys):
                try emit(56, 1)
                for key in keys {
                    try emit(key.code, 1)
                    try emit(key.code, 0)
                }
                try emit(56, 0)
            }
            if delay > 0 { usleep(UInt32(delay * 1e6)) }
        }
    }

    /// One EV_KEY event and its SYN_REPORT.
    private func emit(_ code: UInt16, _ value: Int32) throws(DeviceError) {
        var events = [input_event(), input_event()]
        events[0].type = KS_EV_KEY
        events[0].code = code
        events[0].value = value
        events[1].type = KS_EV_SYN
        events[1].code = KS_SYN_REPORT
        let size = MemoryLayout<input_event>.stride * 2
        guard let file else { throw DeviceError(kind: .unavailable, description: "\(path) is not open") }
        do {
            let written = try events.withUnsafeBytes { try file.write($0) }
            guard written == size else { throw DeviceError(kind: .unavailable, description: "\(path): short write of \(written) bytes") }
        } catch let error as DeviceError {
            throw error
        } catch {
            throw DeviceError(kind: .unavailable, description: "\(path): write failed: \(error)")
        }
    }

    func close() {
        if let file {
            _ = ioctl(file.rawValue, UInt(KS_UI_DEV_DESTROY))
            try? file.close()
        }
        file = nil
    }
}
