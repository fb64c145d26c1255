import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// Configs and frames shared by the daemon tests.
enum Fixtures {
    /// Waits, polling every 2 ms, until `condition` holds; false after `seconds`.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// A config with `device`, quick stall detection, extra camera keys, and any extra YAML sections.
    static func config(device: String, camera: String = "", scanner: String = "", extra: String = "") -> String {
        """
        camera:
          device: "\(device)"
        \(camera)
        scanner:
          stall_timeout: 2
        \(scanner)
        \(extra)
        """
    }

    /// A directory of PGM frames: each code centred on a 320x240 frame, `blanks` blank frames after each.
    static func replayDirectory(codes: [String], blanks: Int = 0) throws -> String {
        let directory = try TemporaryDirectory.shared.directory("replay")
        var index = 0
        func write(_ frame: Frame) throws {
            index += 1
            try pgm(frame).write(to: URL(fileURLWithPath: String(format: "%@/%04d.pgm", directory, index)))
        }
        let blank = Frame(width: 320, height: 240, pixels: [UInt8](repeating: 220, count: 320 * 240))
        for code in codes {
            try write(centredQR(code, size: Size(width: 320, height: 240)))
            for _ in 0..<blanks { try write(blank) }
        }
        return directory
    }

    /// A QR code of `text` centred on a frame of `size`.
    static func centredQR(_ text: String, size: Size = Size(width: 640, height: 480)) throws -> Frame {
        Barcodes.centred(try ImageFile.read(path: Barcodes.qr(text, moduleSize: 3)), in: size)
    }

    /// A PGM file of `frame`, for replay directories and the emulated camera.
    static func pgm(_ frame: Frame) -> Data { Barcodes.pgm(frame) }

    /// A QR code PGM of `text` centred on a 640x480 frame, written into `directory`.
    static func qrFrameFile(_ text: String, in directory: String) throws -> String {
        let path = "\(directory)/\(text.replacingOccurrences(of: "/", with: "_")).pgm"
        try pgm(centredQR(text)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes a config for the MQTT bridge into `directory` (`NAME.conf`): the daemon's socket, the
    /// broker on this machine's `port`, a device id and a spool, and `extra` lines of the `mqtt:`
    /// section (indented two spaces). Returns its path.
    static func bridgeConfig(
        socket: String, port: Int, deviceID: String = "lane", spool: String, extra: String = "", in directory: String, name: String = "bridge"
    ) throws -> String {
        let path = "\(directory)/\(name).conf"
        try """
        socket:
          path: \(socket)
        mqtt:
          host: 127.0.0.1
          port: \(port)
          device_id: \(deviceID)
          spool_dir: \(spool)
        \(extra)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The MQTT bridge on `config`, at debug log level, its log `NAME.log` in `directory`.
    static func bridge(config: String, in directory: String, name: String = "bridge") throws -> LoggedProcess {
        try LoggedProcess(MQTTTests.bridgeBinary, ["--config", config, "--log-level", "debug"], logPath: "\(directory)/\(name).log")
    }

    /// Expects `bridge` to log that it connected to the daemon, then to the broker.
    static func expectConnected(_ bridge: LoggedProcess, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(bridge.waitForLog("connected to the daemon"), "\(bridge.log)", sourceLocation: sourceLocation)
        #expect(bridge.waitForLog("connected to the broker"), "\(bridge.log)", sourceLocation: sourceLocation)
    }
}
