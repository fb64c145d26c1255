// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "KioskScanner",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "kiosk-scanner", targets: ["kiosk-scanner"]),
        .executable(name: "kiosk-scanner-mqtt", targets: ["kiosk-scanner-mqtt"]),
        .executable(name: "kiosk-scanner-web", targets: ["kiosk-scanner-web"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // 1.7: `Stat`, stat(2) with typed file types, inodes and devices.
        .package(url: "https://github.com/apple/swift-system", from: "1.7.0"),
        // 2.101: a channel's socket descriptor for SIOCOUTQ (`withUnsafeTransportIfAvailable`).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // The installer's console (kiosk-scanner-web only): HTTP, WebSocket, TLS and bcrypt. No
        // traits: Hummingbird's default FullFoundation would link Foundation and ICU.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        // C libraries, each behind one thin shim module.
        // ZBar from Debian's source, the decoder alone (no X11, video or D-Bus), a static library built
        // by scripts/zbar (PKG_CONFIG_PATH).
        .systemLibrary(name: "CZBar", pkgConfig: "zbar-kiosk"),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        // zxing-cpp 3 through its own C API, a static library built by scripts/zxing-cpp (PKG_CONFIG_PATH).
        .systemLibrary(name: "CZXing", pkgConfig: "zxing-c"),
        // The config file's YAML: libyaml's event parser (what Yams wraps, without Foundation's ICU).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // libgpiod 1.6 or 2.x, whichever is installed, loaded at first use (dlopen): one small C
        // interface over both, and a binary that runs on Debian 12 and 13 alike.
        .target(name: "CGPIOLines"),
        // The uinput kernel interface's ioctl numbers and structs (no library).
        .systemLibrary(name: "CUInput"),
        // The MQTT bridge's client library (the bridge is a program of its own: the daemon links no network code).
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // Keyboard layouts: xkeyboard-config compiled by libxkbcommon, dead keys through its compose tables.
        // No pkgConfig: the headers and library are in the default paths.
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
        // 2023-07 on also needs abseil (pkg-config re2 then lists it). A release build links the
        // static archive (libre2-dev ships it): with the C++ runtime static too
        // (packaging/build-release), the daemon maps no libstdc++.so (1.1 MiB resident).
        .target(
            name: "CRE2",
            linkerSettings: [
                .linkedLibrary("re2", .when(configuration: .debug)),
                .linkedLibrary(":libre2.a", .when(configuration: .release)),
            ]
        ),

        // The OS boundary the other modules share: one clock and time type, a thread of its own,
        // checked system calls (files, sockets, signals, the process, malloc) beside swift-system's,
        // UNIX socket addresses and an atomic file writer. Only it and the C-facing modules import Glibc.
        .target(name: "Platform", dependencies: ["CMalloc", "CSocketQueue", .product(name: "SystemPackage", package: "swift-system")]),
        // Frames, pixel geometry, the viewport and the camera's state (pure Swift).
        .target(name: "Imaging"),
        // Symbologies, symbols and reads; GS1, GTIN and Digital Link; content types; formatting rules
        // (their regexes through CRE2) and output lines; kiosk documents in a read.
        .target(name: "Codes", dependencies: ["Imaging", "Documents", "Platform", "CRE2"]),
        // Kiosk documents in a code's data: AAMVA driver's licences and ID cards, IATA boarding passes (pure Swift).
        .target(name: "Documents"),
        // ZBar and zxing-cpp behind one protocol, and the config that picks them.
        .target(name: "Decoding", dependencies: ["Codes", "Imaging", "CZBar", "CZXing"]),
        // The read pipeline: change gate, look schedule, decoders, tracker and pack merger as one
        // value, frames in, reads out.
        .target(name: "ReadPipeline", dependencies: ["Decoding", "Codes", "Imaging"]),
        // Keys, host keyboard layouts (xkeyboard-config through libxkbcommon), typing text as key
        // chords, and HID POS reports.
        .target(name: "Keyboard", dependencies: ["Codes", "CXKBCommon"]),
        // PNG, JPEG and PNM files into frames.
        .target(name: "ImageFiles", dependencies: ["Imaging", "Platform", "CPNG", "CTurboJPEG", .product(name: "SystemPackage", package: "swift-system")]),
        // The socket's wire protocol: commands, events both ways, status snapshots, the socket's
        // settings; the daemon and the tools share it.
        .target(name: "ScannerProtocol", dependencies: ["Codes", "Imaging", "Platform", .product(name: "SystemPackage", package: "swift-system")]),
        // Frames from a V4L2 camera through libv4l2, libcamera, or replayed from a directory; recordings.
        .target(
            name: "Capture",
            dependencies: [
                "Imaging", "Codes", "ImageFiles", "Platform", "CV4L2", "CTurboJPEG", "CLibcameraAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The torch, buzzer, flash LED and trigger button on GPIO lines (libgpiod), and PWM buzzers.
        .target(
            name: "Feedback",
            dependencies: [
                "Platform", "CGPIOLines",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Outputs besides the socket: serial ports, keyboard wedges (uinput, USB HID gadget), HID POS.
        .target(
            name: "Outputs",
            dependencies: [
                "Codes", "Keyboard", "Platform", "CUInput", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The config file's reading, shared by the daemon and its helper programs: libyaml, sections
        // read key by key with FILE:LINE: KEY errors, and what the helpers read (the socket, mqtt,
        // web, and the viewport the console checks).
        .target(
            name: "ConfigReading",
            dependencies: [
                "Imaging", "Platform", "ScannerProtocol", "CYAML", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The daemon's config file, assembled into the whole ScannerConfig.
        .target(
            name: "ConfigFile",
            dependencies: [
                "Capture", "Codes", "ConfigReading", "Decoding", "Feedback", "Imaging", "Keyboard", "Outputs", "ReadPipeline", "ScannerProtocol",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // The supervisor: capture loop, delivery over the UNIX socket, systemd notify, reload.
        .target(
            name: "Daemon",
            dependencies: [
                "Codes", "Imaging", "Platform", "ReadPipeline", "ScannerProtocol", "Capture", "Decoding", "ConfigFile", "ConfigReading", "Feedback",
                "Outputs", "ImageFiles", .product(name: "Logging", package: "swift-log"),
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
                "Codes", "ConfigReading", "Platform", "ScannerProtocol", "CMosquitto", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "kiosk-scanner-mqtt",
            dependencies: [
                "Bridge", "ConfigReading", "Platform", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // The installer's console: the daemon's socket as a client, a live view, reads, health and
        // controls in a browser (Hummingbird). A program of its own: the daemon links no HTTP code.
        .target(
            name: "Console",
            dependencies: [
                "ConfigReading", "Imaging", "Platform", "ScannerProtocol", .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "kiosk-scanner-web",
            dependencies: [
                "Console", "ConfigReading", "Platform", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        .executableTarget(
            name: "kiosk-scanner",
            dependencies: [
                "Codes", "Imaging", "Platform", "ScannerProtocol", "Capture", "ImageFiles", "Decoding", "ConfigFile", "Daemon", "Feedback",
                "Keyboard",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // Benchmarks: our decode path beside a bare C libzbar loop, and accuracy over a sample corpus.
        .target(name: "ZBarAnchor", dependencies: ["CZBar"], path: "Benchmarks/ZBarAnchor"),
        .executableTarget(
            name: "decode-bench",
            dependencies: ["Codes", "Imaging", "ImageFiles", "Decoding", "ReadPipeline", "ZBarAnchor"],
            path: "Benchmarks/decode-bench"
        ),

        // Test-only machinery: barcode images made with zint and qrencode, frames, running the binary.
        .target(
            name: "ScannerTestSupport",
            dependencies: ["Codes", "Documents", "Imaging", "ImageFiles", "Keyboard", "CTurboJPEG", .product(name: "Logging", package: "swift-log")],
            path: "Tests/ScannerTestSupport"
        ),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "Codes", "Decoding", "ImageFiles", "ScannerTestSupport"]),
        .testTarget(name: "CodesTests", dependencies: ["Codes", "Imaging", "Documents", "ScannerTestSupport"]),
        .testTarget(name: "DocumentsTests", dependencies: ["Documents", "ScannerTestSupport"]),
        .testTarget(name: "ReadPipelineTests", dependencies: ["ReadPipeline", "Decoding", "Codes", "Imaging", "ImageFiles", "ScannerTestSupport"]),
        .testTarget(name: "KeyboardTests", dependencies: ["Keyboard", "Codes", "ScannerTestSupport"]),
        .testTarget(name: "FeedbackTests", dependencies: ["Feedback"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Codes", "Imaging"]),
        .testTarget(name: "ScannerProtocolTests", dependencies: ["ScannerProtocol", "Codes", "Imaging", "Platform", "ScannerTestSupport"]),
        .testTarget(name: "DecodingTests", dependencies: ["Decoding", "ImageFiles", "Codes", "Imaging", "ScannerTestSupport"]),
        .testTarget(
            name: "ConfigFileTests",
            dependencies: [
                "ConfigFile", "ConfigReading", "Capture", "Codes", "Decoding", "Documents", "Feedback", "Imaging", "Keyboard", "Outputs",
                "ReadPipeline", "ScannerProtocol", "ScannerTestSupport",
            ]),
        .testTarget(name: "CLITests", dependencies: ["Codes", "ImageFiles", "Imaging", "Keyboard", "ScannerTestSupport"]),
        .testTarget(
            name: "BridgeTests", dependencies: ["Bridge", "Codes", "ConfigFile", "ConfigReading", "Platform", "ScannerProtocol", "ScannerTestSupport"]),
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "Console", "ConfigFile", "ConfigReading", "Imaging", "Platform", "ScannerProtocol", "ScannerTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "Capture", "Codes", "ConfigFile", "Decoding", "Imaging", "Platform", "ReadPipeline", "ScannerProtocol", "ImageFiles",
                "ScannerTestSupport", "Feedback", "Outputs",
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
        ("fuzz-gs1", ["Codes"]),
        ("fuzz-digital-link", ["Codes"]),
        ("fuzz-content-type", ["Codes"]),
        ("fuzz-spool", ["Bridge"]),
        ("fuzz-hidpos", ["Keyboard"]),
        ("fuzz-image", ["ImageFiles", "Imaging"]),
        ("fuzz-documents", ["Documents", "Codes", "Imaging"]),
    ]
    package.targets += fuzzTargets.map { .executableTarget(name: $0.name, dependencies: ["FuzzSupport"] + $0.dependencies, path: "Fuzz/Sources/\($0.name)") }
}
