// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KioskScanner",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "kiosk-scanner", targets: ["kiosk-scanner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // C libraries, each behind one thin shim module.
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),

        // Pure Swift: frames, viewport, symbols and reads, AIM, GS1, content types, config model.
        .target(name: "ScannerCore"),
        // PNG, JPEG and PNM files into frames.
        .target(name: "ImageFiles", dependencies: ["ScannerCore", "CPNG", "CTurboJPEG"]),
        // Decoders behind one protocol.
        .target(name: "Decoding", dependencies: ["ScannerCore", "CZBar"]),
        // The config file, parsed with Yams into the ScannerCore model.
        .target(name: "ConfigFile", dependencies: ["ScannerCore", "Yams"]),

        .executableTarget(
            name: "kiosk-scanner",
            dependencies: [
                "ScannerCore", "ImageFiles", "Decoding", "ConfigFile",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Benchmarks: our decode path beside a bare C libzbar loop, and accuracy over a sample corpus.
        .target(name: "ZBarAnchor", dependencies: ["CZBar"], path: "Benchmarks/ZBarAnchor"),
        .executableTarget(
            name: "decode-bench",
            dependencies: ["ScannerCore", "ImageFiles", "Decoding", "ZBarAnchor"],
            path: "Benchmarks/decode-bench"
        ),

        // Test-only machinery: barcode images made with zint and qrencode, frames, running the binary.
        .target(
            name: "ScannerTestSupport",
            dependencies: ["ScannerCore", "ImageFiles", "CTurboJPEG"],
            path: "Tests/ScannerTestSupport"
        ),
        .testTarget(name: "ScannerCoreTests", dependencies: ["ScannerCore"]),
        .testTarget(name: "DecodingTests", dependencies: ["Decoding", "ImageFiles", "ScannerCore", "ScannerTestSupport"]),
        .testTarget(name: "ConfigFileTests", dependencies: ["ConfigFile", "ScannerCore"]),
        .testTarget(name: "CLITests", dependencies: ["ScannerCore", "ScannerTestSupport"]),
    ]
)
