import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The emulated GPIO chip (Tests/Emulators/libgpiodemu, preloaded in front of libgpiod): a
/// directory describing the chips, where the emulator logs every line value with a timestamp
/// and takes injected button edges.
public struct EmulatedGPIO: Sendable {
    public let directory: String

    /// One logged event: when (CLOCK_MONOTONIC ns), which line, and what happened.
    public struct Entry: Sendable, Equatable {
        public let time: UInt64
        public let offset: Int
        public let event: String
        public let arguments: [String]
    }

    /// A chip `gpiochip0` labelled `pinctrl-emu` with 32 lines, those in `names` named.
    public init(directory: String, names: [Int: String] = [17: "GPIO17", 22: "GPIO22", 23: "GPIO23", 27: "GPIO27"], busy: [Int] = []) throws {
        self.directory = directory
        let named = names.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        try "gpiochip0 pinctrl-emu 32 \(named)\n".write(toFile: "\(directory)/chips", atomically: true, encoding: .utf8)
        try busy.map { "gpiochip0 \($0) other-daemon\n" }.joined().write(toFile: "\(directory)/busy", atomically: true, encoding: .utf8)
        unlink("\(directory)/log")
    }

    /// The emulator for the libgpiod generation under test: $KSGPIO_LIB, or the 1.x build.
    public static var library: String {
        if let path = ProcessInfo.processInfo.environment["KSGPIO_LIB"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/emulators/libgpiodemu1.so").standardized.path
    }

    /// What a process needs to see this chip, added to `base` (another emulator's LD_PRELOAD stays).
    public func environment(adding base: [String: String] = [:]) -> [String: String] {
        var environment = base
        environment["LD_PRELOAD"] = [base["LD_PRELOAD"], Self.library].compactMap { $0 }.joined(separator: " ")
        environment["KSGPIO_DIR"] = directory
        return environment
    }

    /// Everything logged so far.
    public var entries: [Entry] {
        let text = (try? String(contentsOfFile: "\(directory)/log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 4, let time = UInt64(words[0]), let offset = Int(words[2]) else { return nil }
            return Entry(time: time, offset: offset, event: words[3], arguments: Array(words.dropFirst(4)))
        }
    }

    /// The logical value a line was last driven to (request, set or release), nil if never requested.
    public func value(of offset: Int) -> Int? {
        for entry in entries.reversed() where entry.offset == offset {
            for argument in entry.arguments where argument.hasPrefix("value=") { return Int(argument.dropFirst(6)) }
            if entry.event == "set" { return Int(entry.arguments.first ?? "") }
        }
        return nil
    }

    /// The times a line went active and back, as (on, off) pairs in nanoseconds.
    public func pulses(of offset: Int) -> [(on: UInt64, off: UInt64)] {
        var pulses: [(UInt64, UInt64)] = []
        var since: UInt64?
        for entry in entries where entry.offset == offset && entry.event == "set" {
            if entry.arguments.first == "1", since == nil { since = entry.time }
            if entry.arguments.first == "0", let start = since {
                pulses.append((start, entry.time))
                since = nil
            }
        }
        return pulses
    }

    /// Waits until an entry matches.
    public func waitFor(timeout: Double = 10, _ match: (Entry) -> Bool) -> Entry? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let found = entries.first(where: match) { return found }
            usleep(10_000)
        } while Date() < deadline
        return nil
    }

    /// Injects edges on an input line (its FIFO exists once the line is requested): each is
    /// (to active, nanoseconds after now).
    public func inject(_ edges: [(active: Bool, after: UInt64)], offset: Int) throws {
        let path = "\(directory)/gpiochip0-\(offset).edges"
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let base = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
        let text = edges.map { "\($0.active ? "rising" : "falling") \(base + $0.after)\n" }.joined()
        let fd = open(path, O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else { throw Tool.Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
    }

    /// A press and release `holding` nanoseconds apart.
    public func press(offset: Int, holding: UInt64 = 80_000_000) throws {
        try inject([(true, 0), (false, holding)], offset: offset)
    }
}
