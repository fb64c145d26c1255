import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pseudo-terminal pair in raw mode, standing in for a serial line or a HID gadget: the daemon
/// opens the slave through a symlink, the test reads and writes the master side. Closing the pair
/// and pointing the symlink at a new one emulates an unplug and replug.
public final class PseudoTerminal: @unchecked Sendable {
    public let master: Int32
    /// Held open by the test too, so the raw settings stay while the daemon reopens.
    public let slave: Int32
    public let slavePath: String
    /// Filler bytes written by `stall()` and not read yet.
    private var stalledBytes = 0

    public init() throws {
        // posix_openpt() and friends, by their ioctls (Swift's Glibc module leaves them out).
        let unlock: UInt = 0x4004_5431
        let number: UInt = 0x8004_5430  // TIOCSPTLCK, TIOCGPTN
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        var locked: Int32 = 0
        var index: UInt32 = 0
        guard master >= 0, ioctl(master, unlock, &locked) == 0, ioctl(master, number, &index) == 0 else {
            throw Tool.Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        slavePath = "/dev/pts/\(index)"
        slave = open(slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
    }

    /// Points `link` at this terminal's slave (atomically).
    public func link(_ link: String) throws {
        let temporary = link + ".new"
        unlink(temporary)
        guard symlink(slavePath, temporary) == 0, rename(temporary, link) == 0 else {
            throw Tool.Failure(description: "cannot link \(link): \(String(cString: strerror(errno)))")
        }
    }

    /// Bytes the daemon wrote, waiting up to `timeout` for at least `count` of them (fewer on timeout).
    public func read(atLeast count: Int, timeout: Double = 10) -> [UInt8] {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while bytes.count < count, deadline.timeIntervalSinceNow > 0 {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let got = Glibc.read(master, &chunk, chunk.count)
            if got > 0 { bytes += chunk[0..<got] }
        }
        return bytes
    }

    /// Writes to the daemon's side (for a HID gadget: the host's LED output report).
    public func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// Fills the master's input queue from the slave side, so the daemon's writes block (a host that stopped polling).
    public func stall() {
        let chunk = [UInt8](repeating: 0, count: 1024)
        while case let written = chunk.withUnsafeBytes({ Glibc.write(slave, $0.baseAddress, $0.count) }), written > 0 {
            stalledBytes += written
        }
    }

    /// Reads away the filler `stall()` wrote, and nothing after it: what the daemon wrote once
    /// there was room again stays to be read.
    public func drain() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while stalledBytes > 0 {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 1000) > 0 else { break }
            let got = Glibc.read(master, &chunk, min(chunk.count, stalledBytes))
            if got > 0 { stalledBytes -= got }
        }
    }

    /// Closes both ends: the line hangs up.
    public func close() {
        Glibc.close(slave)
        Glibc.close(master)
    }
}

extension Tool {
    /// Runs `kiosk-scanner ARGUMENTS` with its standard output on a terminal (for what it does when
    /// `isatty`); returns what the terminal got once `count` bytes have come (fewer after 10 s),
    /// after the program has exited.
    public static func scannerOnTerminal(_ arguments: [String], atLeast count: Int) throws -> [UInt8] {
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: scannerBinary)
        process.arguments = arguments
        process.standardOutput = FileHandle(forUpdatingAtPath: terminal.slavePath)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = terminal.read(atLeast: count)
        process.waitUntilExit()
        return bytes
    }
}
