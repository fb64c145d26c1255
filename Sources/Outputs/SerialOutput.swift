import Codes
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import SystemPackage

/// Reads written to a serial port (a USB-serial adapter, or the board's USB CDC-ACM gadget
/// `/dev/ttyGS0`). The port is opened raw with the configured line settings; when it vanishes
/// the output reopens it, holding reads (within bounds) and then sending them in order.
public final class SerialOutput: WorkerOutput {
    static let thread = "serial"
    let worker: OutputWorker
    private let config: SerialConfig

    public init(_ output: OutputConfig, serial: SerialConfig, logger: Logger) {
        worker = OutputWorker(output, logger: logger)
        config = serial
    }

    func serve() {
        let logger = worker.logger
        var port: FileDescriptor?
        // Logged when it changes; the first state is always logged.
        var lastProblem: String? = "starting"
        func report(_ problem: String?) {
            guard problem != lastProblem else { return }
            if let problem {
                logger.warning("\(name): \(problem); holding reads until it is back")
                worker.setState(.waiting(problem))
            } else {
                logger.info(
                    "\(name): open (\(config.baud) \(config.dataBits)\(config.parity.rawValue.prefix(1).uppercased())\(config.stopBits), flow \(config.flow.rawValue))"
                )
                worker.setState(.ok)
            }
            lastProblem = problem
        }
        while !worker.isStopped {
            guard let open = port else {
                switch openPort() {
                case .success(let opened):
                    port = opened
                    report(nil)
                case .failure(let problem):
                    report(problem.description)
                    // Reads still expire while the port is away.
                    _ = worker.peek(timeout: 0)
                    usleep(250_000)
                }
                continue
            }
            guard let (_, bytes, _) = worker.peekFormatted(timeout: 0.25) else { continue }
            switch write(bytes, to: open) {
            case .sent:
                worker.sent()
            case .gone(let problem):
                try? open.close()
                port = nil
                report(problem)
            case .stalled:
                // Flow control held us off: keep the read and retry (it expires by age if it never goes).
                worker.setState(.waiting("flow control: the other side is not taking data"))
            }
        }
        try? port?.close()
    }

    private enum WriteResult {
        case sent
        case gone(String)
        case stalled
    }

    private func write(_ bytes: [UInt8], to port: FileDescriptor) -> WriteResult {
        var offset = 0
        while offset < bytes.count {
            var descriptor = pollfd(fd: port.rawValue, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, 2000)
            if ready == 0 { return .stalled }
            if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .gone("the port went away") }
            do {
                offset += try bytes[offset...].withUnsafeBytes { try port.write($0) }
            } catch Errno.wouldBlock {
                continue
            } catch {
                return .gone("write failed: \(error)")
            }
        }
        return .sent
    }

    private struct OpenProblem: Error, CustomStringConvertible { let description: String }

    private func openPort() -> Result<FileDescriptor, OpenProblem> {
        let port: FileDescriptor
        do {
            port = try FileDescriptor.open(config.device, .readWrite, options: [.nonBlocking, .closeOnExec, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)])
        } catch {
            let code = (error as? Errno) ?? Errno(rawValue: 0)
            let hint =
                switch code {
                case .noSuchFileOrDirectory, .operationNotSupportedByDevice, .noSuchAddressOrDevice: "is it plugged in (or the gadget configured)?"
                case .permissionDenied: "the daemon's user needs the dialout group"
                case .resourceBusy: "another program holds it"
                default: ""
                }
            return .failure(OpenProblem(description: "cannot open \(config.device): \(error) \(hint)"))
        }
        let fd = port.rawValue
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            let reason = Errno(rawValue: errno)
            try? port.close()
            return .failure(OpenProblem(description: "\(config.device) is not a serial port (tcgetattr: \(reason))"))
        }
        cfmakeraw(&settings)
        let speeds: [Int: speed_t] = [
            1200: speed_t(B1200), 2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600), 19200: speed_t(B19200),
            38400: speed_t(B38400), 57600: speed_t(B57600), 115200: speed_t(B115200), 230400: speed_t(B230400),
            460800: speed_t(B460800), 921600: speed_t(B921600),
        ]
        cfsetispeed(&settings, speeds[config.baud] ?? speed_t(B9600))
        cfsetospeed(&settings, speeds[config.baud] ?? speed_t(B9600))
        let sizes: [Int: tcflag_t] = [5: tcflag_t(CS5), 6: tcflag_t(CS6), 7: tcflag_t(CS7), 8: tcflag_t(CS8)]
        settings.c_cflag &= ~(tcflag_t(CSIZE) | tcflag_t(PARENB) | tcflag_t(PARODD) | tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        settings.c_cflag |= sizes[config.dataBits] ?? tcflag_t(CS8)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        switch config.parity {
        case .none: break
        case .even: settings.c_cflag |= tcflag_t(PARENB)
        case .odd: settings.c_cflag |= tcflag_t(PARENB | PARODD)
        }
        if config.stopBits == 2 { settings.c_cflag |= tcflag_t(CSTOPB) }
        settings.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        switch config.flow {
        case .none: break
        case .rtsCts: settings.c_cflag |= tcflag_t(CRTSCTS)
        case .xonXoff: settings.c_iflag |= tcflag_t(IXON | IXOFF)
        }
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
            let reason = Errno(rawValue: errno)
            try? port.close()
            return .failure(OpenProblem(description: "cannot set \(config.device) to \(config.baud) baud: \(reason)"))
        }
        return .success(port)
    }
}
