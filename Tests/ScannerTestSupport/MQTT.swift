import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Lines from a pipe, with a timeout. It reads a duplicate of the descriptor it is given and
/// closes that when it goes: a reader thread can outlive the `Pipe` it was made from (whose
/// handle closes the original), and a number read after its close may already belong to
/// another test's file or socket (a NIO channel that then found its bytes gone trapped).
public final class LineReader: @unchecked Sendable {
    let fd: Int32
    var pending: [UInt8] = []
    public init(_ fd: Int32) { self.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0) }
    deinit { close(fd) }

    public func line(timeout: Double = 15) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                defer { pending.removeSubrange(...newline) }
                return String(decoding: pending[..<newline], as: UTF8.self)
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard deadline.timeIntervalSinceNow > 0, poll(&descriptor, 1, Int32(deadline.timeIntervalSinceNow * 1000) + 1) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }
}

/// `kiosk-scanner listen --socket PATH --count N` running, and its output a line at a time.
public final class ListenProcess: @unchecked Sendable {
    public let process = ChildProcess()
    public let output: LineReader

    public init(socket: String, count: Int, extra: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: Tool.scannerBinary)
        process.arguments = ["listen", "--socket", socket, "--count", String(count)] + extra
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        output = LineReader(pipe.fileHandleForReading.fileDescriptor)
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// A process whose output goes to a log file, killed when the test lets go of it.
public final class LoggedProcess: @unchecked Sendable {
    public let process = ChildProcess()
    public let logPath: String

    /// It starts with no signal blocked and SIGTERM at its default (`ChildProcess`), so `stop()`
    /// reaches a program that does not unblock SIGTERM itself (mosquitto).
    public init(_ program: String, _ arguments: [String], logPath: String) throws {
        self.logPath = logPath
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)!
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop(SIGKILL) }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits for the exit; returns the exit status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func waitForLog(_ text: String, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if log.contains(text) { return true }
            usleep(20_000)
        }
        return log.contains(text)
    }
}

/// Debian's mosquitto broker on a loopback port, with a private config and persistence (so that a
/// persistent subscriber's session and queued messages outlive a restart). No system service.
public final class Broker: @unchecked Sendable {
    public let directory: String
    public let port: Int
    public let extra: String
    private var process: LoggedProcess?

    /// `extra`: more broker config lines (TLS listeners, password files). With `start: false`,
    /// the port is chosen but nothing listens until `start()`.
    public init(extra: String = "", anonymous: Bool = true, start: Bool = true) throws {
        directory = try TemporaryDirectory.shared.directory("broker")
        port = Broker.freePort()
        self.extra = extra
        self.anonymous = anonymous
        if start { try self.start() }
    }

    private let anonymous: Bool

    public func start() throws {
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous \(anonymous)
            persistence true
            persistence_location \(directory)/
            # Run as root (in CI) it would drop to the mosquitto user, who cannot save in our directory.
            user root
            log_dest stderr
            log_type error
            log_type warning
            log_type notice
            log_type information
            \(extra)
            """
        try config.write(toFile: "\(directory)/mosquitto.conf", atomically: true, encoding: .utf8)
        process = try LoggedProcess(
            "/usr/sbin/mosquitto", ["-c", "\(directory)/mosquitto.conf"], logPath: "\(directory)/mosquitto.log")
        try Broker.waitForPort(port)
    }

    /// Stops the broker the way systemd would (SIGTERM: it saves its sessions).
    public func stop() { process?.stop() }

    public var log: String { process?.log ?? "" }

    public func waitForLog(_ text: String, timeout: Double = 20) -> Bool { process?.waitForLog(text, timeout: timeout) ?? false }

    deinit { process?.stop(SIGKILL) }

    /// A port nobody listens on now.
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits until something accepts connections on `port`.
    public static func waitForPort(_ port: Int, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return }
            usleep(20_000)
        }
        throw Tool.Failure(description: "nothing listens on port \(port)")
    }
}

/// `mosquitto_sub`, with a persistent session (its messages wait at the broker while it
/// reconnects), printing each message as `TOPIC PAYLOAD`. A thread drains its output as it comes,
/// so that a test that looks away never stalls it (a full pipe stops its keepalive pings).
public final class Subscriber: @unchecked Sendable {
    private let process = ChildProcess()
    private let lines = Lines()
    private let arrived = DispatchSemaphore(value: 0)

    /// The lines read and not yet taken.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func append(_ line: String) { lock.withLock { items.append(line) } }
        func removeFirst() -> String { lock.withLock { items.removeFirst() } }
    }

    /// Returns once the broker has the subscription (a probe message came back), so that nothing
    /// published after it can be missed.
    public init(port: Int, topics: [String], clientID: String = "test-\(UUID().uuidString.prefix(8))", extra: [String] = []) throws {
        let probe = "probe/\(clientID)"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments =
            ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-c", "-i", clientID, "-v"] + (topics + [probe]).flatMap { ["-t", $0] } + extra
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = LineReader(output.fileHandleForReading.fileDescriptor)
        let probed = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [lines, arrived] in
            while let line = reader.line(timeout: 3600) {
                if line.hasPrefix(probe + " ") {
                    probed.signal()
                    continue
                }
                lines.append(line)
                arrived.signal()
            }
        }
        let deadline = Date().addingTimeInterval(20)
        repeat {
            try publishMQTT(port: port, topic: probe, "probe")
        } while probed.wait(timeout: .now() + 0.2) == .timedOut && Date() < deadline
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The next message, as its topic and payload; nil after `timeout` seconds without one.
    public func message(timeout: Double = 20) -> (topic: String, payload: String)? {
        guard arrived.wait(timeout: .now() + max(0, timeout)) == .success else { return nil }
        let line = lines.removeFirst()
        guard let space = line.firstIndex(of: " ") else { return (line, "") }
        return (String(line[..<space]), String(line[line.index(after: space)...]))
    }

    /// Messages until one on `topic` satisfies `match`.
    public func waitFor(_ topic: String, timeout: Double = 20, _ match: (String) -> Bool = { _ in true }) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0, let message = message(timeout: deadline.timeIntervalSinceNow) {
            if message.topic == topic && match(message.payload) { return message.payload }
        }
        return nil
    }
}

/// `mosquitto_pub`: one message.
public func publishMQTT(port: Int, topic: String, _ payload: String) throws {
    try Tool.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-t", topic, "-m", payload])
}
