import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The real `kiosk-scanner run` binary in a scratch directory, with its own config and socket,
/// optionally in front of the emulated camera (LD_PRELOAD of libv4l2emu.so).
public final class DaemonProcess: @unchecked Sendable {
    public let directory: String
    public let socketPath: String
    public let configPath: String
    public let logPath: String
    public let process = ChildProcess()

    /// Starts the daemon with `config` (YAML; `socket.path` is added) and extra environment.
    public init(config: String, environment: [String: String] = [:], socketPath: String? = nil) throws {
        directory = try TemporaryDirectory.shared.directory("daemon")
        self.socketPath = socketPath ?? "\(directory)/scan.sock"
        configPath = "\(directory)/kiosk-scanner.conf"
        logPath = "\(directory)/daemon.log"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Tool.scannerBinary)
        process.arguments = ["run", "--config", configPath, "--socket", self.socketPath, "--log-level", "debug"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)!
        process.standardError = log
        process.standardOutput = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public var pid: Int32 { process.processIdentifier }

    /// Connects a client once the daemon listens (it binds within a second or two of starting).
    /// With `subscribe` (a POS application's way) it consumes scans from the first moment;
    /// without, from `socket.consumer_after` on.
    public func connect(timeout: Double = 20, subscribe: Bool = true) throws -> SocketClient {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let client = SocketClient(path: socketPath) {
                if subscribe { client.subscribe() }
                return client
            }
            guard process.isRunning else { throw Tool.Failure(description: "daemon exited \(process.terminationStatus): \(log)") }
            guard Date() < deadline else { throw Tool.Failure(description: "daemon never listened on \(socketPath): \(log)") }
            usleep(20_000)
        }
    }

    /// Connects a client that takes no scans (it unsubscribes at once and waits for the reply), to
    /// send commands beside the consumers under test.
    public func connectControl(timeout: Double = 20) throws -> SocketClient {
        let client = try connect(timeout: timeout, subscribe: false)
        _ = client.command("unsubscribe")
        return client
    }

    /// Sends a signal.
    public func signal(_ number: Int32) { kill(pid, number) }

    /// Sends SIGTERM and waits for the exit status.
    @discardableResult
    public func stop() -> Int32 {
        signal(SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Everything the daemon logged so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Open file descriptors and memory mappings of the daemon now.
    /// /proc/PID/maps, read to its end (the file reports size 0, and String(contentsOfFile:)
    /// gave a map without the library the daemon loaded last).
    public var memoryMap: String {
        String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    }

    public var resourceCounts: (fds: Int, maps: Int) {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        let maps = memoryMap.split(separator: "\n").count
        return (fds, maps)
    }
}

/// A client of the scan socket that reads JSON event lines with timeouts.
public final class SocketClient: @unchecked Sendable {
    public let fd: Int32
    private var pending: [UInt8] = []

    /// Connects, or returns nil when nothing listens at `path`.
    public init?(path: String) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // A failed init runs `deinit` (every property is set), which closes the socket: closing
        // it here too closed the same number twice, and the second close could take a descriptor
        // another test's thread had just been handed (its PNG read failed with EBADF in CI).
        if result != 0 { return nil }
    }

    deinit { close(fd) }

    /// Hangs up as a client that leaves does: the daemon reads the end of the stream. The
    /// descriptor stays this client's until it goes, so nothing else can be handed its number
    /// and then closed by `deinit` (as a second `close` would).
    public func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Sends one command line.
    public func send(_ line: String) { send(Array((line + "\n").utf8)) }

    /// Sends `subscribe` and takes its reply out of the stream; the lines before it stay to be read.
    public func subscribe(timeout: Double = 10) {
        send("subscribe")
        var before: [String] = []
        while let line = line(timeout: timeout) {
            if line == "ok" || line.contains(#""command":"subscribe""#) { break }
            before.append(line)
        }
        pending = Array(before.map { $0 + "\n" }.joined().utf8) + pending
    }

    /// The next line, or nil at end of stream or after `timeout` seconds without one.
    public func line(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(remaining * 1000) + 1) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }

    /// The next JSON event, or nil.
    public func event(timeout: Double = 10) -> [String: Any]? {
        guard let line = line(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? ["unparsed": line]
    }

    /// Reads events until one satisfies `match`; returns it and the events passed over.
    public func waitFor(timeout: Double = 10, _ match: ([String: Any]) -> Bool) -> (match: [String: Any]?, skipped: [[String: Any]]) {
        let deadline = Date().addingTimeInterval(timeout)
        var skipped: [[String: Any]] = []
        while deadline.timeIntervalSinceNow > 0, let event = event(timeout: deadline.timeIntervalSinceNow) {
            if match(event) { return (event, skipped) }
            skipped.append(event)
        }
        return (nil, skipped)
    }

    /// Waits for a scan event whose text is `text`.
    public func waitForScan(_ text: String, timeout: Double = 10) -> (match: [String: Any]?, skipped: [[String: Any]]) {
        waitFor(timeout: timeout) { $0["type"] as? String == "scan" && $0["text"] as? String == text }
    }

    /// Waits for a state event with this camera state.
    public func waitForCamera(_ state: String, timeout: Double = 10) -> [String: Any]? {
        waitFor(timeout: timeout) { $0["type"] as? String == "state" && $0["camera"] as? String == state }.match
    }

    /// Asks `status` until every read is accounted for (detections = reads + duplicates + merged +
    /// dropped + rejected + held + awaiting), or `timeout` passes; returns whether it balanced, the counters and `held`.
    public func waitForBalancedCounters(timeout: Double) -> (balanced: Bool, counters: [String: Any], held: Int) {
        var counters: [String: Any] = [:]
        var held = -1
        var balanced = false
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let status = command("status")?["status"] as? [String: Any] ?? [:]
            counters = status["counters"] as? [String: Any] ?? [:]
            held = status["held"] as? Int ?? -1
            let dropped = (counters["dropped"] as? [String: Int] ?? [:]).values.reduce(0, +)
            let awaiting = status["awaiting"] as? Int ?? -1
            balanced =
                counters["detections"] as? Int == (counters["reads"] as? Int ?? 0) + (counters["duplicates"] as? Int ?? 0)
                + (counters["unconfirmed"] as? Int ?? 0) + (counters["merged"] as? Int ?? 0)
                + dropped + (counters["rejected"] as? Int ?? 0) + held + awaiting
        } while !balanced && Date() < deadline
        return (balanced, counters, held)
    }

    /// Sends a command and returns its reply (skipping events that arrive first).
    public func command(_ line: String, timeout: Double = 10) -> [String: Any]? {
        send(line)
        return waitFor(timeout: timeout) { $0["type"] as? String == "reply" }.match
    }
}

/// The emulated camera: a device node file whose content scripts the emulator (see
/// Tests/Emulators/libv4l2emu/README.md). Present = plugged.
public struct EmulatedCamera: Sendable {
    public let node: String
    public let log: String

    public init(directory: String) {
        node = "\(directory)/video0"
        log = "\(directory)/emu.log"
    }

    /// The shared library, built by `make -C Tests/Emulators/libv4l2emu` into .build/emulators.
    public static var library: String {
        if let path = ProcessInfo.processInfo.environment["KSEMU_LIB"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/emulators/libv4l2emu.so").standardized.path
    }

    /// What a daemon needs in its environment to see this camera.
    public var environment: [String: String] {
        ["LD_PRELOAD": Self.library, "KSEMU_DEVICE": node, "KSEMU_LOG": log]
    }

    /// The libcamera emulator (Tests/Emulators/libcameraemu), loaded by the daemon in place of
    /// libkiosk-scanner-libcamera.so; it plays the same node file.
    public static var libcameraLibrary: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/emulators/libcameraemu.so").standardized.path
    }

    /// What a daemon with `camera.device: libcamera` needs in its environment to see this camera.
    public var libcameraEnvironment: [String: String] {
        ["KS_LIBCAMERA_SHIM": Self.libcameraLibrary, "KSCAMEMU_NODE": node, "KSEMU_LOG": log]
    }

    /// Plugs the camera in (or rescripts it), atomically, with these settings.
    public func plug(_ settings: [String: String] = [:]) throws {
        let text = settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
        let temporary = node + ".tmp"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary, node) == 0 else { throw Tool.Failure(description: "rename to \(node) failed") }
    }

    /// Unplugs the camera: the node disappears.
    public func unplug() { unlink(node) }
}

extension DaemonProcess {
    /// Waits until the daemon's log contains `text` (the log is the daemon's own account of events).
    public func waitForLog(_ text: String, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log.contains(text) { return true }
            guard process.isRunning else { return log.contains(text) }
            usleep(10_000)
        }
        return false
    }
}

/// A stand-in for systemd's notify socket: a datagram socket the daemon sends to.
public final class NotifyListener: @unchecked Sendable {
    public let path: String
    private let fd: Int32

    public init() throws {
        path = try TemporaryDirectory.shared.file("notify-\(UUID().uuidString.prefix(6)).sock")
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw Tool.Failure(description: "cannot bind \(path)") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The lines received that no wait has taken yet, in order. The daemon's messages need not come
    /// in the order a test waits for them: READY=1 carries the status of the moment in the same
    /// datagram, which is already "camera streaming" when the camera was quicker than the socket.
    private var backlog: [Substring] = []

    /// Takes the first line starting with `prefix`, from those received and not yet taken or from
    /// those that come within `timeout`. Each line is taken once, so waiting for READY=1 after each
    /// reload counts the reloads.
    public func waitFor(_ prefix: String, timeout: Double = 10) -> String? {
        if let index = backlog.firstIndex(where: { $0.hasPrefix(prefix) }) { return String(backlog.remove(at: index)) }
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(deadline.timeIntervalSinceNow * 1000) + 1) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            backlog += String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n")
            if let index = backlog.firstIndex(where: { $0.hasPrefix(prefix) }) { return String(backlog.remove(at: index)) }
        }
        return nil
    }
}
