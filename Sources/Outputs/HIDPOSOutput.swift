import Codes
import Keyboard
import Logging
import ServiceLifecycle

/// The board as a USB HID Point of Sale bar code scanner (the gadget's hid-pos function): each
/// read is sent as Scanned Data Reports with its AIM identifier (`HIDPOS`), so that the host gets
/// it whole whatever its keyboard layout or focused window. The host's Trigger Report pauses and
/// resumes scanning, through `onRequest`.
public final class HIDPOSOutput: Output {
    public let name: String
    private let config: HIDPOSConfig
    private let format: OutputFormat
    private let worker: OutputWorker
    private let onRequest: @Sendable (HIDPOS.HostRequest) -> Void
    private let logger: Logger

    public init(_ output: OutputConfig, pos: HIDPOSConfig, logger: Logger, onRequest: @escaping @Sendable (HIDPOS.HostRequest) -> Void) {
        name = output.name
        config = pos
        format = output.format
        worker = OutputWorker(name: output.name, capacity: output.holdCount, maxAge: output.holdSeconds)
        self.onRequest = onRequest
        self.logger = logger
    }

    public func send(_ read: Read, done: @escaping @Sendable (Bool) -> Void) { worker.enqueue(read, done: done) }
    public var health: OutputHealth { worker.healthState.withLock { $0 } }

    public func run() async throws { await worker.run(thread: "hid-pos", logger: logger) { [self] in serve() } }

    /// The output's thread: makes and opens its gadget function, sends each read, closes it once
    /// stopped. The function is this thread's alone.
    private func serve() {
        let function = HIDGadgetFunction(path: config.device, role: "HID POS scanner")
        let idle = { [self] in takeHostReports(from: function) }
        worker.serve(device: function, format: format, logger: logger, ready: "ready", idle: idle) { _, bytes, aim throws(DeviceError) in
            try function.write(HIDPOS.reports(data: bytes, aim: aim), partOfReadSent: false)
        }
    }

    private func takeHostReports(from function: HIDGadgetFunction) {
        for report in function.hostReports() {
            let requests = HIDPOS.requests(in: report)
            guard !requests.isEmpty else {
                logger.debug("\(name): host report \(report.map { String($0, radix: 16) }.joined(separator: " ")) ignored")
                continue
            }
            for request in requests {
                guard config.hostControl else {
                    logger.notice("\(name): the host asked to \(request.verb); host_control is off")
                    continue
                }
                logger.info("\(name): the host asked to \(request.verb)")
                onRequest(request)
            }
        }
    }
}

extension HIDPOS.HostRequest {
    var verb: String { self == .preventRead ? "prevent reads (pause)" : "initiate reads (resume)" }
}
