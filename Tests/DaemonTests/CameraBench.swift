import Foundation
import Imaging
import ScannerTestSupport
import Testing

/// The emulated camera in a scratch directory of its own, and the real daemon started in front of
/// it: what every suite that plays frames to the daemon through libv4l2emu sets up.
struct CameraBench {
    /// The scratch directory: the camera's node file, its frames, and whatever else a test puts there.
    let directory: String
    let camera: EmulatedCamera

    /// A new directory named after `name` (one per test, as Swift Testing makes a suite per test).
    init(_ name: String) throws {
        directory = try TemporaryDirectory.shared.directory(name)
        camera = EmulatedCamera(directory: directory)
    }

    /// The path of a 640x480 frame with a QR code of `text` in its centre, written into the directory.
    func frame(_ text: String) throws -> String { try Fixtures.qrFrameFile(text, in: directory) }

    /// Plugs the camera in showing a QR code of `text`, with the emulator's other `settings`.
    func show(_ text: String, with settings: [String: String] = [:]) throws {
        try camera.plug(settings.merging(["frame": frame(text)]) { $1 })
    }

    /// Plugs the camera in showing `frame`, with the emulator's other `settings`. Each frame gets a
    /// file of its own: the emulator keeps an image by its path.
    func show(_ frame: Frame, with settings: [String: String] = [:]) throws {
        try camera.plug(settings.merging(["frame": Barcodes.pgmFile(frame)]) { $1 })
    }

    /// Shows each code in turn, waiting until `daemon` has made its read (numbered from `seq`).
    func show(_ codes: [String], to daemon: DaemonProcess, from seq: Int = 1) throws {
        for (index, code) in codes.enumerated() {
            try show(code)
            #expect(daemon.waitForLog("read \(seq + index) QR-Code"), "read \(seq + index) made")
        }
    }

    /// What the emulator logged so far (each call, each control set or refused).
    var emulatorLog: String { (try? String(contentsOfFile: camera.log, encoding: .utf8)) ?? "" }

    /// The daemon on `Fixtures.config` for this camera with these keys, in the camera's environment
    /// and `environment`; a variable in both has both values, so another emulator's LD_PRELOAD
    /// library is preloaded after the camera's.
    func start(
        camera cameraKeys: String = "", scanner: String = "", extra: String = "", environment: [String: String] = [:]
    ) throws -> DaemonProcess {
        try DaemonProcess(
            config: Fixtures.config(device: camera.node, camera: cameraKeys, scanner: scanner, extra: extra),
            environment: camera.environment.merging(environment) { "\($0) \($1)" })
    }

    /// The camera busy or forbidden at open (the emulator's `open` key), through whichever source
    /// `start` runs: the state comes with its hint, is logged once and not on every retry, and the
    /// freed camera is taken by the retry.
    func expectOpenFailure(open: String, state: String, hint: String, start: () throws -> DaemonProcess) throws {
        let text = "after \(open)"
        let path = try frame(text)
        try camera.plug(["open": open, "frame": path])
        let daemon = try start()
        let client = try daemon.connect()
        let event = try #require(client.waitForCamera(state))
        #expect((event["detail"] as? String)?.contains(hint) == true, "\(event)")
        #expect(daemon.waitForLog("camera \(state)"))
        try camera.plug(["frame": path])
        #expect(client.waitForScan(text).match != nil)
        #expect(daemon.log.components(separatedBy: "camera \(state):").count == 2, "the state is logged once, not on every retry")
    }
}
