import Codes
import Foundation
import ImageFiles
import Imaging

/// Barcode images made at test time with zint and qrencode (from apt), so no fixture is committed.
public enum Barcodes {
    /// zint's number for each symbology it can draw.
    static let zintTypes: [Symbology: Int] = [
        .ean13: 13, .ean8: 13, .upca: 34, .upce: 37, .itf: 3, .code39: 8, .code93: 25, .code128: 20,
        .codabar: 18, .databar: 29, .databarExpanded: 31, .databarLimited: 30, .qr: 58, .microqr: 97, .rmqr: 145,
        .pdf417: 55, .datamatrix: 71, .aztec: 92,
    ]

    /// A PNG of `data` drawn as `symbology` by zint, in a fresh temporary directory; returns its path.
    public static func zint(_ symbology: Symbology, _ data: String, gs1: Bool = false, scale: Int = 2, extra: [String] = []) throws -> String {
        let path = try TemporaryDirectory.shared.file("\(symbology.rawValue)-\(UUID().uuidString).png")
        // zint draws GS1-128 as a symbology of its own (16).
        let type = gs1 && symbology == .code128 ? 16 : zintTypes[symbology]!
        var arguments = ["-b", String(type), "-d", data, "-o", path, "--scale=\(scale)", "--quietzones"]
        if gs1 && type != 16 { arguments.append("--gs1") }
        try Tool.run("zint", arguments + extra)
        return path
    }

    /// A QR code PNG of `bytes` in 8-bit mode, made by qrencode; returns its path.
    public static func qr(bytes: [UInt8], moduleSize: Int = 4) throws -> String {
        let input = try TemporaryDirectory.shared.file("qr-\(UUID().uuidString).bin")
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let path = input + ".png"
        try Tool.run("qrencode", ["-8", "-r", input, "-s", String(moduleSize), "-m", "4", "-o", path])
        return path
    }

    /// A QR code PNG of `text`.
    public static func qr(_ text: String, moduleSize: Int = 4) throws -> String {
        try qr(bytes: Array(text.utf8), moduleSize: moduleSize)
    }

    /// A frame of `size` filled with `background`, with each image pasted at its point.
    public static func compose(size: Size, background: UInt8 = 220, placing images: [(Frame, Point)]) -> Frame {
        var pixels = [UInt8](repeating: background, count: size.width * size.height)
        for (image, origin) in images {
            for y in 0..<image.height where (0..<size.height).contains(origin.y + y) {
                for x in 0..<image.width where (0..<size.width).contains(origin.x + x) {
                    pixels[(origin.y + y) * size.width + origin.x + x] = image[x, y]
                }
            }
        }
        return Frame(width: size.width, height: size.height, pixels: pixels)
    }

    /// A PGM file's bytes of `frame`, for replay directories, the emulated camera and `scan`.
    public static func pgm(_ frame: Frame) -> Data {
        var bytes = Data("P5\n\(frame.width) \(frame.height)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + frame.width * frame.height)
        // A row at a time: a pixel at a time, unoptimised, was most of the time tests spent writing frames.
        for y in 0..<frame.height {
            bytes.append(frame.storage.base.assumingMemoryBound(to: UInt8.self) + y * frame.stride, count: frame.width)
        }
        return bytes
    }

    /// Writes `frame` as a PGM file in the scratch directory; returns its path.
    public static func pgmFile(_ frame: Frame, name: String = "frame") throws -> String {
        let path = try TemporaryDirectory.shared.file("\(name)-\(UUID().uuidString).pgm")
        try pgm(frame).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Images placed side by side, `gap` pixels apart, centred on a frame of `size`.
    public static func sideBySide(_ images: [Frame], in size: Size, gap: Int = 40) -> Frame {
        let width = images.map(\.width).reduce(0, +) + gap * (images.count - 1)
        var x = (size.width - width) / 2
        var placed: [(Frame, Point)] = []
        for image in images {
            placed.append((image, Point(x: x, y: (size.height - image.height) / 2)))
            x += image.width + gap
        }
        return compose(size: size, placing: placed)
    }

    /// `image` smeared along x over `length` pixels, as a camera sees it move that far during one
    /// exposure: each pixel the mean of `length` neighbours, the image's edge columns repeated.
    /// `step` is the direction of motion: (1, 0) across (the default), (0, 1) down, (1, 1) a diagonal.
    public static func motionBlurred(_ image: Frame, length: Int, step: (dx: Int, dy: Int) = (1, 0)) -> Frame {
        guard length > 1 else { return image }
        var pixels = [UInt8](repeating: 0, count: image.width * image.height)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let sum = (0..<length).reduce(0) { sum, index in
                    let offset = index - length / 2
                    return sum + Int(image[min(max(x + offset * step.dx, 0), image.width - 1), min(max(y + offset * step.dy, 0), image.height - 1)])
                }
                pixels[y * image.width + x] = UInt8(sum / length)
            }
        }
        return Frame(width: image.width, height: image.height, pixels: pixels)
    }

    /// `image` turned by `degrees` about its centre and scaled, sampled bilinearly, on white.
    public static func turned(_ image: Frame, degrees: Double, scale: Double) -> Frame {
        let side = Int(Double(max(image.width, image.height)) * scale * 1.5)
        let (cosine, sine) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        let pixels = (0..<side * side).map { index -> UInt8 in
            let (dx, dy) = (Double(index % side) - Double(side) / 2, Double(index / side) - Double(side) / 2)
            let x = (cosine * dx + sine * dy) / scale + Double(image.width) / 2
            let y = (-sine * dx + cosine * dy) / scale + Double(image.height) / 2
            guard x >= 0, y >= 0, x < Double(image.width - 1), y < Double(image.height - 1) else { return 255 }
            let (x0, y0) = (Int(x), Int(y))
            let (fx, fy) = (x - Double(x0), y - Double(y0))
            let top = Double(image[x0, y0]) * (1 - fx) + Double(image[x0 + 1, y0]) * fx
            let bottom = Double(image[x0, y0 + 1]) * (1 - fx) + Double(image[x0 + 1, y0 + 1]) * fx
            return UInt8((top * (1 - fy) + bottom * fy).rounded())
        }
        return Frame(width: side, height: side, pixels: pixels)
    }

    /// `image` with three bars, 2 px wide and 2 px apart, from 3 px past its code's last bar on the
    /// right (`direction` 1) or its first on the left (-1), along its middle row, 41 px tall: the
    /// bars of a longer code past a short one's end.
    public static func barredPastEnd(_ image: Frame, direction: Int) -> Frame {
        let middle = image.height / 2
        let dark = (0..<image.width).filter { image[$0, middle] < 110 }
        let edge = direction > 0 ? dark.max()! : dark.min()!
        var pixels = (0..<image.height).flatMap { y in (0..<image.width).map { image[$0, y] } }
        for bar in 0..<3 {
            for offset in 0..<2 {
                let x = edge + direction * (3 + 4 * bar + offset)
                precondition((0..<image.width).contains(x), "the bars fit in the image")
                for y in max(middle - 20, 0)...min(middle + 20, image.height - 1) { pixels[y * image.width + x] = 0 }
            }
        }
        return Frame(width: image.width, height: image.height, pixels: pixels)
    }

    /// A frame of `size` with `image` centred on it.
    public static func centred(_ image: Frame, in size: Size, background: UInt8 = 220) -> Frame {
        compose(size: size, background: background, placing: [(image, Point(x: (size.width - image.width) / 2, y: (size.height - image.height) / 2))])
    }
}

/// A process-wide scratch directory under /tmp, removed by nobody: tests may leave files for a post-mortem.
public final class TemporaryDirectory: Sendable {
    public static let shared = TemporaryDirectory()
    public let path: String

    public init() {
        path = NSTemporaryDirectory() + "kiosk-scanner-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory (the file is not created).
    public func file(_ name: String) throws -> String { "\(path)/\(name)" }

    /// A new empty subdirectory.
    public func directory(_ name: String) throws -> String {
        let sub = "\(path)/\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        return sub
    }
}
