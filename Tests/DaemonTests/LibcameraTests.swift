import Foundation
import ScannerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real daemon's libcamera source (`camera.device: libcamera`) over the emulated libcamera
/// camera (libcameraemu.so loaded in place of libkiosk-scanner-libcamera.so): the states, the
/// recovery and the settings it hands to libcamera. The rig runs the real library on a real
/// uvcvideo camera.
@Suite(.serialized) struct LibcameraTests {
    let bench: CameraBench
    static let id = "/base/emu/imx708@1a"

    init() throws {
        bench = try CameraBench("libcamera")
        try #require(FileManager.default.fileExists(atPath: EmulatedCamera.libcameraLibrary), "build it with: make -C Tests/Emulators/libcameraemu")
    }

    /// The daemon on the libcamera source, over the emulated libcamera unless `environment` says otherwise.
    func start(device: String = "libcamera", camera cameraKeys: String = "", environment: [String: String]? = nil) throws -> DaemonProcess {
        try DaemonProcess(config: Fixtures.config(device: device, camera: cameraKeys), environment: environment ?? bench.camera.libcameraEnvironment)
    }

    /// The emulator's log lines of one kind.
    func emulatorLog(_ event: String) -> [String] {
        bench.emulatorLog.split(separator: "\n").map(String.init).filter { $0.hasPrefix(event + " ") }
    }

    @Test(arguments: ["NV12", "YU12", "GREY", "YUYV", "MJPG"])
    func everyStreamFormatIsRead(format: String) throws {
        try bench.show("libcamera \(format)", with: ["formats": format])
        let daemon = try start()
        let client = try daemon.connect()
        let streaming = try #require(client.waitForCamera("streaming"))
        #expect(streaming["format"] as? String == "\(format) 640x480 (libcamera)")
        #expect(streaming["device"] as? String == "libcamera:\(Self.id)")
        #expect(client.waitForScan("libcamera \(format)").match != nil)
    }

    /// Luma first: NV12 is chosen over YUYV and MJPEG when the camera offers all three.
    @Test func aPlaneFormatIsPreferred() throws {
        try bench.show("preferred", with: ["formats": "MJPG,YUYV,NV12"])
        let daemon = try start()
        let client = try daemon.connect()
        #expect((client.waitForCamera("streaming")?["format"] as? String)?.hasPrefix("NV12") == true)
        #expect(emulatorLog("open").first?.contains("format=NV12") == true)
    }

    /// No camera: unavailable with a hint, torch off. Plugged: streaming and read. Unplugged
    /// (libcamera's cameraRemoved): interrupted, torch off. Back: read again, one reconnect.
    @Test func aMissingCameraIsUsedOnceItAppearsAndAnUnplugIsRecovered() throws {
        let daemon = try start()
        let client = try daemon.connect()
        let missing = try #require(client.waitForCamera("unavailable"))
        #expect((missing["detail"] as? String)?.contains("libcamera finds no camera") == true, "\(missing)")
        #expect(missing["torch"] as? String == "off")
        try bench.show("first plug")
        #expect(client.waitForCamera("streaming") != nil)
        #expect(client.waitForScan("first plug").match != nil)
        bench.camera.unplug()
        let lost = try #require(client.waitForCamera("interrupted"))
        #expect((lost["detail"] as? String)?.contains("disconnected") == true, "\(lost)")
        #expect(lost["torch"] as? String == "off")
        #expect(!emulatorLog("removed").isEmpty)
        #expect(Fixtures.wait(seconds: 10) { !emulatorLog("close").isEmpty }, "the camera was closed after the unplug")
        try bench.show("second plug")
        #expect(client.waitForScan("second plug", timeout: 15).match != nil)
        let status = try #require(client.command("status")?["status"] as? [String: Any])
        #expect((status["counters"] as? [String: Any])?["reconnects"] as? Int == 1)
        #expect(daemon.stop() == 0)
        #expect(emulatorLog("open").count == emulatorLog("close").count, "every camera opened was closed")
    }

    @Test(arguments: [("busy", "busy", "in use by another process"), ("denied", "permission-denied", "'video' group")])
    func openFailuresGiveTheirStateAndHint(open: String, state: String, hint: String) throws {
        try bench.expectOpenFailure(open: open, state: state, hint: hint) { try start() }
    }

    @Test func aCameraIsChosenByItsIdAndAWrongIdNamesTheCamerasThereAre() throws {
        try bench.show("by id")
        let wrong = try start(device: "libcamera:/base/emu/ov5647@36")
        let unavailable = try #require(try wrong.connect().waitForCamera("unavailable"))
        #expect((unavailable["detail"] as? String)?.contains("it has: \(Self.id)") == true, "\(unavailable)")
        #expect(wrong.stop() == 0)
        let right = try start(device: "libcamera:\(Self.id)")
        #expect(try right.connect().waitForScan("by id").match != nil)
    }

    /// Controls and autofocus reach the camera by libcamera's names and types; what the camera
    /// lacks is a warning naming what it has.
    @Test func controlsAndManualFocusGoToTheCamera() throws {
        try bench.show("controls")
        let daemon = try start(
            camera: "  controls: { ExposureTime: 8000, AnalogueGain: 2.5, Sharpness: 1 }\n  autofocus: manual\n  lens_position: 2.5")
        #expect(try daemon.connect().waitForScan("controls").match != nil)
        let controls = emulatorLog("control")
        #expect(controls.contains { $0.hasSuffix("name=ExposureTime value=8000") }, "\(controls)")
        #expect(controls.contains { $0.hasSuffix("name=AnalogueGain value=2.5") }, "\(controls)")
        #expect(emulatorLog("af").last?.hasSuffix("mode=manual lens=2.5") == true, "\(emulatorLog("af"))")
        #expect(daemon.waitForLog("camera has no control 'Sharpness'; ignored (available: ExposureTime,AnalogueGain"))
    }

    @Test func continuousAutofocusIsTheDefaultAndAFixedFocusCameraIsToldApart() throws {
        try bench.show("focus")
        let daemon = try start()
        #expect(try daemon.connect().waitForScan("focus").match != nil)
        #expect(emulatorLog("af").last?.hasSuffix("mode=continuous") == true, "\(emulatorLog("af"))")
        #expect(daemon.stop() == 0)
        // A fixed-focus camera: the default sets nothing and says nothing; asking for a sweep warns.
        try bench.show("fixed focus", with: ["autofocus": "0"])
        let quiet = try start()
        #expect(try quiet.connect().waitForScan("fixed focus").match != nil)
        #expect(!quiet.log.contains("no autofocus"))
        #expect(quiet.stop() == 0)
        let asked = try start(camera: "  autofocus: auto")
        #expect(asked.waitForLog("autofocus: auto asked, but the camera has no autofocus"))
    }

    /// A silent camera (no frames, no unplug) is interrupted after the stall time and reopened.
    @Test func aStalledCameraIsInterruptedAndReopened() throws {
        try bench.show("before the stall")
        let daemon = try start()
        let client = try daemon.connect()
        #expect(client.waitForScan("before the stall").match != nil)
        try bench.camera.plug(["stall": "1"])
        let lost = try #require(client.waitForCamera("interrupted"))
        #expect((lost["detail"] as? String)?.contains("no frame for 2") == true, "\(lost)")
        try bench.show("after the stall")
        #expect(client.waitForScan("after the stall").match != nil)
    }

    /// Without the library the camera is unsupported, and the daemon says what to install.
    @Test func withoutTheLibraryTheCameraIsUnsupportedWithAHint() throws {
        let daemon = try start(environment: ["KS_LIBCAMERA_SHIM": "\(bench.directory)/missing.so"])
        let event = try #require(try daemon.connect().waitForCamera("unsupported"))
        #expect((event["detail"] as? String)?.contains("libcamera support is not installed") == true, "\(event)")
        #expect(daemon.stop() == 0)
    }

    /// libcamera (and the libraries it brings) is loaded only by a daemon that uses it.
    @Test func aV4L2DaemonNeverLoadsLibcamera() throws {
        try bench.show("maps")
        let v4l2 = try bench.start()
        #expect(try v4l2.connect().waitForScan("maps").match != nil)
        let maps = v4l2.memoryMap
        #expect(maps.contains("kiosk-scanner") && maps.contains("libv4l2emu.so"), "the whole map was read")
        #expect(!maps.contains("libcamera") && !maps.contains("libkiosk-scanner-libcamera"))
        #expect(v4l2.stop() == 0)
        let libcamera = try start()
        #expect(try libcamera.connect().waitForScan("maps").match != nil)
        #expect(libcamera.memoryMap.contains("libcameraemu.so"))
    }
}
