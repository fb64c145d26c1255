// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KioskScanner",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "kiosk-scanner", targets: ["kiosk-scanner"]),
        .executable(name: "kiosk-scanner-mqtt", targets: ["kiosk-scanner-mqtt"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // 2.101: a channel's socket descriptor for SIOCOUTQ (`withUnsafeTransportIfAvailable`).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        // C libraries, each behind one thin shim module.
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        // zxing-cpp 3 through its own C API, a static library built by scripts/zxing-cpp (PKG_CONFIG_PATH).
        .systemLibrary(name: "CZXing", pkgConfig: "zxing-c"),
        // The config file's YAML: libyaml's event parser (what Yams wraps, without Foundation's ICU).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // libgpiod 1.6 or 2.x, whichever pkg-config finds; CGPIOLines gives both one small C interface.
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .target(name: "CGPIOLines", dependencies: ["CGPIOD"]),
        // The uinput kernel interface's ioctl numbers and structs (no library).
        .systemLibrary(name: "CUInput"),
        // The MQTT bridge's client library (the bridge is a program of its own: the daemon links no network code).
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // Keyboard layouts: xkeyboard-config compiled by libxkbcommon, dead keys through its compose tables.
        // No pkgConfig: its -L/usr/lib/... would come first on the link line and hide the libgpiod 2
        // build that scripts/test links against (the headers and library are in the default paths).
        .systemLibrary(name: "CXKBCommon", providers: [.apt(["libxkbcommon-dev"])]),
        // The libcamera source's C table (a header only: the daemon finds the functions with dlopen
        // in libkiosk-scanner-libcamera.so, which Sources/KSLibcamera/Makefile builds with g++:
        // a SwiftPM library would link the Swift runtime, which the release daemon has inside).
        .systemLibrary(name: "CLibcameraAPI"),
        // glibc's malloc_trim (no library: libc).
        .systemLibrary(name: "CMalloc"),
        // ioctl(SIOCOUTQ): what a socket's peer has not read yet (no library: libc).
        .systemLibrary(name: "CSocketQueue"),
        // RE2, linear-time regular expressions, for the formatting rules (a C++ library: a few
        // extern "C" calls). Debian 12's libre2-dev (2022-06-01) links with -lre2 alone; RE2 from
        // 2023-07 on also needs abseil (pkg-config re2 then lists it).
        .target(name: "CRE2", linkerSettings: [.linkedLibrary("re2")]),

        // Pure Swift: frames, viewport, symbols and reads, AIM, GS1, content types, config model
        // (the formatting rules' regexes through CRE2).
        .target(name: "ScannerCore", dependencies: ["CRE2", "Documents"]),
        // Kiosk documents in a code's data: AAMVA driver's licences and ID cards, IATA boarding passes (pure Swift).
        .target(name: "Documents"),
        // PNG, JPEG and PNM files into frames.
        .target(name: "ImageFiles", dependencies: ["ScannerCore", "CPNG", "CTurboJPEG", .product(name: "SystemPackage", package: "swift-system")]),
        // Decoders behind one protocol.
        .target(name: "Decoding", dependencies: ["ScannerCore", "CZBar", "CZXing"]),
        // The socket's wire protocol: commands, events both ways, status snapshots, the JSON
        // settings, the socket address and a recording's index; the daemon and the tools share it.
        .target(name: "ScannerProtocol", dependencies: ["ScannerCore", .product(name: "SystemPackage", package: "swift-system")]),
        // Frames from a V4L2 camera through libv4l2, or replayed from a directory.
        .target(
            name: "Capture",
            dependencies: [
                "ScannerCore", "ScannerProtocol", "ImageFiles", "CV4L2", "CTurboJPEG", "CLibcameraAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The torch, buzzer, flash LED and trigger button on GPIO lines (libgpiod), and PWM buzzers.
        .target(
            name: "Feedback",
            dependencies: [
                "ScannerCore", "CGPIOLines",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Host keyboard layouts (xkeyboard-config through libxkbcommon) as the wedge's key tables.
        .target(name: "Keymaps", dependencies: ["ScannerCore", "CXKBCommon"]),
        // Outputs besides the socket: serial ports and keyboard wedges (uinput, USB HID gadget).
        .target(
            name: "Outputs",
            dependencies: [
                "ScannerCore", "ScannerProtocol", "Keymaps", "CUInput", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The config file, parsed with libyaml into the ScannerCore model.
        .target(name: "ConfigFile", dependencies: ["ScannerCore", "Keymaps", "CYAML", .product(name: "SystemPackage", package: "swift-system")]),

        // The supervisor: capture loop, tracking, the UNIX socket, systemd notify, reload.
        .target(
            name: "Daemon",
            dependencies: [
                "ScannerCore", "ScannerProtocol", "Capture", "Decoding", "ConfigFile", "Feedback", "Outputs", "CMalloc", "CSocketQueue",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // The MQTT bridge: the daemon's socket on one side, a broker (libmosquitto) on the other.
        .target(
            name: "Bridge",
            dependencies: [
                "ScannerCore", "ScannerProtocol", "CMosquitto", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "kiosk-scanner-mqtt", dependencies: ["Bridge", "ConfigFile", "ScannerCore", .product(name: "Logging", package: "swift-log")]),

        .executableTarget(
            name: "kiosk-scanner",
            dependencies: [
                "ScannerCore", "ScannerProtocol", "ImageFiles", "Decoding", "ConfigFile", "Daemon", "Feedback", "Keymaps",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
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
        .testTarget(name: "ScannerCoreTests", dependencies: ["ScannerCore", "Documents", "ScannerTestSupport"]),
        .testTarget(name: "DocumentsTests", dependencies: ["Documents", "ScannerTestSupport"]),
        .testTarget(name: "ScannerProtocolTests", dependencies: ["ScannerProtocol", "ScannerCore"]),
        .testTarget(name: "DecodingTests", dependencies: ["Decoding", "ImageFiles", "ScannerCore", "ScannerTestSupport"]),
        .testTarget(name: "ConfigFileTests", dependencies: ["ConfigFile", "ScannerCore", "Documents", "ScannerTestSupport"]),
        .testTarget(name: "OutputsTests", dependencies: ["ScannerCore", "Keymaps", "ScannerTestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["ScannerCore", "ScannerTestSupport"]),
        .testTarget(name: "BridgeTests", dependencies: ["Bridge", "ScannerTestSupport"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "ScannerCore", "ScannerProtocol", "ImageFiles", "ScannerTestSupport", "Feedback", "Outputs",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
    ]
)

// libFuzzer targets (Fuzz/Sources), declared only for scripts/fuzz, which sets KIOSK_SCANNER_FUZZ and
// builds them with -sanitize=fuzzer and ASan in .build-fuzz: they call libFuzzer's driver, which
// only -sanitize=fuzzer links, so the normal build leaves them out.
if Context.environment["KIOSK_SCANNER_FUZZ"] != nil {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/Sources/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/Sources/FuzzSupport"),
    ]
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("fuzz-config", ["ConfigFile"]),
        ("fuzz-command", ["ScannerProtocol"]),
        ("fuzz-gs1", ["ScannerCore"]),
        ("fuzz-digital-link", ["ScannerCore"]),
        ("fuzz-content-type", ["ScannerCore"]),
        ("fuzz-spool", ["Bridge"]),
        ("fuzz-hidpos", ["ScannerCore"]),
        ("fuzz-image", ["ImageFiles", "ScannerCore"]),
        ("fuzz-documents", ["Documents", "ScannerCore"]),
    ]
    package.targets += fuzzTargets.map { .executableTarget(name: $0.name, dependencies: ["FuzzSupport"] + $0.dependencies, path: "Fuzz/Sources/\($0.name)") }
}
