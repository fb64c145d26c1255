import Codes
import Keyboard
import Logging
import ServiceLifecycle

/// The board as a USB HID Point of Sale bar code scanner (the gadget's hid-pos function): each
/// read is sent as Scanned Data Reports with its AIM identifier (`HIDPOS`), so that the host gets
/// it whole whatever its keyboard layout or focused window. The host's Trigger Report pauses and
/// resumes scanning, through `onRequest`.
public final class HIDPOSOutput: WorkerOutput {
    static let thread = "hid-pos"
    let worker: OutputWorker
    private let config: HIDPOSConfig
    private let onRequest: @Sendable (HIDPOS.HostRequest) -> Void

    public init(_ output: OutputConfig, pos: HIDPOSConfig, logger: Logger, onRequest: @escaping @Sendable (HIDPOS.HostRequest) -> Void) {
        worker = OutputWorker(output, logger: logger)
        config = pos
        self.onRequest = onRequest
    }

    func serve() {
        let function = HIDGadgetFunction(path: config.device, role: "HID POS scanner")
        let idle = { [self] in takeHostReports(from: function) }
        worker.serve(device: function, ready: "ready", idle: idle) { _, bytes, aim throws(DeviceError) in
            try function.write(HIDPOS.reports(data: bytes, aim: aim), partOfReadSent: false)
        }
    }

    private func takeHostReports(from function: HIDGadgetFunction) {
        let logger = worker.logger
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
