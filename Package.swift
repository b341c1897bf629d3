// swift-tools-version: 6.3;(experimentalCGen)
// experimentalCGen: SwiftPM 6.3 compiles the C sources and headers a build-tool plugin generates only with this opt-in
// (Plugins/WaylandScanner: the Wayland protocol glue of CWayland). Swift 6.3 or newer builds the package.
import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "EdgeSwipe",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "edgeswiped", targets: ["edgeswiped"]),
        .executable(name: "edgeswipectl", targets: ["edgeswipectl"]),
        .executable(name: "edgeswipe-web", targets: ["edgeswipe-web"]),
        .executable(name: "edgeswipe-session", targets: ["edgeswipe-session"]),
        // The three clients above in one binary, which the package installs them as (links to it): Makefile.
        .executable(name: "edgeswipe-clients", targets: ["edgeswipe-clients"]),
        .library(name: "EdgeSwipeCore", targets: ["EdgeSwipeCore"]),
        .library(name: "EdgeSwipeProtocol", targets: ["EdgeSwipeProtocol"]),
        .library(name: "EdgeSwipeClient", targets: ["EdgeSwipeClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.7.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.0"),
        // No traits: the default FullFoundation imports all of Foundation, and with it ICU's 34 MB of data, into the
        // web bridge for URL-encoded forms' date formatters it never uses; ConfigurationSupport, swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.20.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.6.0"),
        // Hummingbird's header types (`HTTPFields`, `HTTPField.Name`), which the web bridge names itself.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        // The words the wire and the engine share, below both: units and instants, device and transition ids, edges,
        // swipe directions, device kinds and rotations, gesture and transition phases, presentation styles and frames,
        // the run-out's curves (as a client interpolates them), the limits on names and state, the version. Clients
        // (the protocol and everything over it) speak it without linking the engine.
        .target(
            name: "EdgeSwipeVocabulary",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strictSwift6
        ),

        // Pure Swift, no I/O, no C, no clock: touch model, recognizers, transitions, the engine (in the vocabulary's
        // words, which it re-exports).
        .target(
            name: "EdgeSwipeCore",
            dependencies: ["EdgeSwipeVocabulary", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strictSwift6
        ),

        // The process's contact with the system: the one monotonic clock, and every POSIX call swift-system lacks
        // (Unix socket addresses and calls, peer credentials, fsync and the *at calls, inotify, ppoll, threads,
        // wake-up pipes, the heap), each wrapped once. Everything above the vocabulary that touches the system uses
        // it, on the daemon's side and the clients' alike.
        .target(
            name: "EdgeSwipeSystem",
            dependencies: ["EdgeSwipeVocabulary", "CSystemCalls", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift6
        ),
        // glibc's GNU extensions that Swift's Glibc module leaves out (ppoll, accept4, malloc_trim, ...); only
        // EdgeSwipeSystem imports it.
        .systemLibrary(name: "CSystemCalls"),

        // Scripted fingers: the one way synthetic touches are written (tests, demo, benchmarks, e2e descriptions).
        .target(name: "EdgeSwipeFingerScript", dependencies: ["EdgeSwipeCore"], swiftSettings: strictSwift6),

        // Touch input as data: evdev codes and events, device descriptions and the frame decoder, the device filter,
        // rotation at run time, input steps. No C: what replays recordings (edgeswipectl) links no device library.
        .target(
            name: "EdgeSwipeInput",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        // Live touch input: libinput and libevdev devices (LiveTouchInput), read through the decoder above. Its C
        // (libinput, libevdev, libudev, and libwacom's GLib with them) comes through CInput and nowhere else, and only
        // the daemon links it.
        .systemLibrary(
            name: "CInput",
            pkgConfig: "libinput libevdev libudev",
            providers: [.apt(["libinput-dev", "libevdev-dev", "libudev-dev"])]
        ),
        .target(
            name: "EdgeSwipeLiveInput",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeSystem", "EdgeSwipeInput", "CInput",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),

        // Recordings: evemu and `libinput record` files (the latter through libyaml, behind CYAML), the player that
        // turns them into input steps through the same evdev decoder as live devices, the renderer of finger scripts
        // as evdev events, and the demo.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .target(
            name: "EdgeSwipeRecordings",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeSystem", "EdgeSwipeInput", "EdgeSwipeFingerScript", "CYAML",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),

        // libsystemd (behind CSystemd) as Swift values: sd-bus, with which the daemon's seat reads the system bus and
        // edgeswipe-session's D-Bus effects call the session bus; and the service manager's calls (sd_notify,
        // sd_listen_fds, sd_watchdog_enabled) the daemon makes.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .target(name: "EdgeSwipeBus", dependencies: ["EdgeSwipeVocabulary", "CSystemd"], swiftSettings: strictSwift6),

        // The seat: who sits at it (logind's active session and its user), sleep, and iio-sensor-proxy's
        // accelerometer. It feeds the server's access policy and the rotation; it has nothing to do with touches.
        .target(
            name: "EdgeSwipeSeat",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeSystem", "EdgeSwipeBus",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        // Configuration files: our own TOML 1.0.0 reader (`TOMLReader`, `TOMLValue`), the file read as every one is
        // (`ConfigFile`: a regular file of UTF-8, at most 1 MiB), the typed, range-checked reading of a table (`Section`)
        // and the error that names file:line (`ConfigError`). The daemon's configuration and the session's rules both
        // read their files through it; neither links the other.
        .target(
            name: "EdgeSwipeTOML",
            dependencies: ["EdgeSwipeVocabulary", "EdgeSwipeSystem", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift6
        ),
        // The daemon's configuration (`config.toml`): its settings, read through EdgeSwipeTOML.
        .target(name: "EdgeSwipeConfig", dependencies: ["EdgeSwipeCore", "EdgeSwipeTOML"], swiftSettings: strictSwift6),
        // The wire format, in the vocabulary's words and without the engine, so that clients never link it.
        .target(name: "EdgeSwipeProtocol", dependencies: ["EdgeSwipeVocabulary"], swiftSettings: strictSwift6),
        // The daemon's side of the wire: engine events and state as the protocol's messages (the server, the daemon,
        // `edgeswipectl replay` and `plot`, and the bench encode with it).
        .target(name: "EdgeSwipeEngineWire", dependencies: ["EdgeSwipeCore", "EdgeSwipeProtocol"], swiftSettings: strictSwift6),
        .target(
            name: "EdgeSwipeServer",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "EdgeSwipeClient",
            dependencies: [
                "EdgeSwipeProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "edgeswiped",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeInput", "EdgeSwipeLiveInput", "EdgeSwipeRecordings", "EdgeSwipeSeat", "EdgeSwipeBus", "EdgeSwipeConfig",
                "EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeServer", "EdgeSwipeSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6,
            // Nothing loads the daemon as a library or looks up its symbols, but a static Swift link exports all of
            // them (the toolchain's -export-dynamic), and the loader searches that table first for every symbol it
            // binds: 1.7 MB of resident memory (docs/PERFORMANCE.md, "Memory").
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]
        ),
        // Each client is a module with one public entry point (CtlTool, WebTool, SessionTool), run by its own small
        // executable and by the multi-call binary edgeswipe-clients, which is what the package installs.
        .target(
            name: "EdgeSwipeCtlTool",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipePlot", "EdgeSwipeInput", "EdgeSwipeRecordings", "EdgeSwipeConfig", "EdgeSwipeProtocol",
                "EdgeSwipeEngineWire", "EdgeSwipeClient", "EdgeSwipeSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(name: "edgeswipectl", dependencies: ["EdgeSwipeCtlTool"], swiftSettings: strictSwift6),

        // `edgeswipectl plot`: what a replay decided, drawn as one SVG (a small writer of our own, no dependency).
        .target(name: "EdgeSwipePlot", dependencies: ["EdgeSwipeCore", "EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeSystem"], swiftSettings: strictSwift6),

        // The web bridge: one daemon client fanned out to browser tabs over HTTP and WebSocket. Its own executable,
        // so that the daemon and the CLI never link an HTTP server. The page and `edgeswipe.js` are embedded.
        .target(
            name: "EdgeSwipeWeb",
            dependencies: [
                "EdgeSwipeProtocol", "EdgeSwipeClient", "EdgeSwipeSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/edgeswipe.js"), .embedInCode("Web/page.js"),
                .embedInCode("Web/about.html"),
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "EdgeSwipeWebTool",
            dependencies: [
                "EdgeSwipeWeb", "EdgeSwipeClient", "EdgeSwipeVocabulary", "EdgeSwipeSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(name: "edgeswipe-web", dependencies: ["EdgeSwipeWebTool"], swiftSettings: strictSwift6),

        // The user's Wayland: libwayland-client and the glue `wayland-scanner` generates at build time from our own
        // protocol XML (protocols/*.xml, through the WaylandScanner plugin). Only EdgeSwipeSession imports it.
        .plugin(name: "WaylandScanner", capability: .buildTool()),
        .target(
            name: "CWayland",
            linkerSettings: [.linkedLibrary("wayland-client")],
            plugins: ["WaylandScanner"]
        ),
        // xkbcommon, which needs no display: keysym names for the key-chord grammar (EdgeSwipeSessionModel) and the
        // keymap the virtual keyboard sends chords through (EdgeSwipeSession's Keys/).
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),

        // cairo, with which the session's overlay draws its frames into wl_shm buffers; only EdgeSwipeSession imports it.
        // Loaded when the overlay starts (dlopen), not linked: the clients are one binary, and linked, cairo's libraries
        // cost every client's start 1.4 ms (Sources/CCairo/include/CCairo.h). Its headers: Debian's libcairo2-dev.
        .target(name: "CCairo"),

        // The session client's model, testable without a display: the user's rules (session.toml) and their parser,
        // effects as values, the key-chord grammar, `RuleMatcher` (the daemon's stream to the rules that fire), the
        // overlay's settings and model (the stream to frames).
        .target(
            name: "EdgeSwipeSessionModel",
            dependencies: ["EdgeSwipeVocabulary", "EdgeSwipeProtocol", "EdgeSwipeClient", "EdgeSwipeTOML", "CXKBCommon"],
            swiftSettings: strictSwift6
        ),
        // The session client's desktop (`edgeswipe-session`), a folder per role: Compositor/ (sway/i3, Hyprland, niri
        // IPC), Keys/ (the virtual keyboard and its keymap), Bus/ (KWin and GNOME Shell over D-Bus), Commands/,
        // Wayland/ (the connection), Overlay/ (the painter and the layer-shell surfaces), and Session.swift, which
        // composes them over the model. Only it imports CWayland, CCairo and EdgeSwipeBus.
        .target(
            name: "EdgeSwipeSession",
            dependencies: [
                "EdgeSwipeSessionModel", "EdgeSwipeVocabulary", "EdgeSwipeProtocol", "EdgeSwipeClient", "EdgeSwipeTOML", "EdgeSwipeSystem",
                "EdgeSwipeBus", "CWayland", "CCairo", "CXKBCommon",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // KWin's focus script, embedded: Bus/edgeswipe-focus.js is a link to packaging/kwin/edgeswipe-focus.js,
            // the one copy (the session writes it for KWin with its bus name filled in).
            resources: [.embedInCode("Bus/edgeswipe-focus.js")],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "EdgeSwipeSessionTool",
            dependencies: [
                "EdgeSwipeSession", "EdgeSwipeSessionModel", "EdgeSwipeClient", "EdgeSwipeTOML", "EdgeSwipeSystem", "EdgeSwipeBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(name: "edgeswipe-session", dependencies: ["EdgeSwipeSessionTool"], swiftSettings: strictSwift6),
        .executableTarget(
            name: "edgeswipe-clients",
            dependencies: ["EdgeSwipeCtlTool", "EdgeSwipeWebTool", "EdgeSwipeSessionTool", "EdgeSwipeCore", "EdgeSwipeSystem"],
            swiftSettings: strictSwift6,
            // As edgeswiped's: nothing looks up the binary's symbols, and an exported table costs the loader's time.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]
        ),

        // Benchmarks (docs/PERFORMANCE.md): the workloads, and `edgeswipe-bench`, which runs the real daemon (it
        // depends on edgeswiped only so that `swift run edgeswipe-bench` builds it). The workloads are no product:
        // Benchmarks/ (a package of its own) builds them from the same folders, through links.
        .target(
            name: "EdgeSwipeBenchSupport",
            dependencies: ["EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeInput", "EdgeSwipeRecordings", "EdgeSwipeProtocol", "EdgeSwipeEngineWire"],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "edgeswipe-bench",
            dependencies: [
                "EdgeSwipeBenchSupport", "EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeInput", "EdgeSwipeRecordings", "EdgeSwipePlot",
                "EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeServer",
                "EdgeSwipeSystem", "edgeswiped",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            swiftSettings: strictSwift6
        ),

        // Helpers several test targets share (temporary directories, waiting on a condition, the state machines'
        // table runner, a stream for drawing clients, a logger read back); no product.
        .target(
            name: "EdgeSwipeTestSupport", dependencies: ["EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeProtocol", "EdgeSwipeEngineWire",
                .product(name: "Logging", package: "swift-log")], path: "Tests/TestSupport",
            swiftSettings: strictSwift6),
        // Evdev events written as data and small modelled devices, for the input and the recordings tests.
        .target(
            name: "EdgeSwipeInputTestSupport", dependencies: ["EdgeSwipeCore", "EdgeSwipeInput"], path: "Tests/InputTestSupport",
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeCoreTests",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "EdgeSwipeInputTests",
            // EdgeSwipeSeat: the accelerometer's orientations, as RotationControl receives them.
            dependencies: [
                "EdgeSwipeInput", "EdgeSwipeLiveInput", "EdgeSwipeSeat", "EdgeSwipeCore", "EdgeSwipeTestSupport", "EdgeSwipeInputTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeRecordingsTests",
            dependencies: [
                "EdgeSwipeRecordings", "EdgeSwipeInput", "EdgeSwipeLiveInput", "EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeTestSupport",
                "EdgeSwipeInputTestSupport",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeSeatTests",
            dependencies: [
                "EdgeSwipeSeat", "EdgeSwipeBus", "EdgeSwipeCore", "EdgeSwipeTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6),
        // TOMLKit (toml++) is the test oracle our own TOML reader is compared with; the daemon does not link it.
        .testTarget(
            name: "EdgeSwipeTOMLTests", dependencies: ["EdgeSwipeTOML", .product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeConfigTests", dependencies: ["EdgeSwipeConfig", "EdgeSwipeTOML", "EdgeSwipeCore"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeSystemTests", dependencies: ["EdgeSwipeSystem", "EdgeSwipeCore", "EdgeSwipeTestSupport", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "EdgeSwipeProtocolTests",
            dependencies: ["EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeCore", "EdgeSwipeSystem", "EdgeSwipeFingerScript"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeServerTests",
            dependencies: [
                "EdgeSwipeServer", "EdgeSwipeClient", "EdgeSwipeCore", "EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeSystem",
                "EdgeSwipeFingerScript",
                "EdgeSwipeTestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeClientTests",
            dependencies: [
                "EdgeSwipeClient", "EdgeSwipeCore", "EdgeSwipeProtocol", "EdgeSwipeSystem", "EdgeSwipeTestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "EdgeSwipeWebTests",
            dependencies: [
                "EdgeSwipeWeb", "EdgeSwipeCore", "EdgeSwipeProtocol", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeSessionModelTests",
            dependencies: [
                "EdgeSwipeSessionModel", "EdgeSwipeProtocol", "EdgeSwipeClient", "EdgeSwipeTOML", "EdgeSwipeTestSupport",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "EdgeSwipeSessionTests",
            dependencies: [
                "EdgeSwipeSession", "EdgeSwipeSessionModel", "EdgeSwipeVocabulary", "EdgeSwipeProtocol", "EdgeSwipeClient", "EdgeSwipeSystem",
                "EdgeSwipeBus", "EdgeSwipeTestSupport", "CCairo", "CWayland",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6),
        .testTarget(name: "EdgeSwipePlotTests", dependencies: ["EdgeSwipePlot"], swiftSettings: strictSwift6),
        .testTarget(name: "EdgeSwipeBenchSupportTests", dependencies: ["EdgeSwipeBenchSupport", "EdgeSwipeCore", "EdgeSwipeInput"], swiftSettings: strictSwift6),
        .testTarget(
            name: "edgeswipedTests",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeConfig", "EdgeSwipeProtocol", "EdgeSwipeInput", "EdgeSwipeRecordings", "EdgeSwipeFingerScript",
                "EdgeSwipeSystem", "EdgeSwipeTestSupport", "EdgeSwipeSession", "EdgeSwipeSessionModel",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // The web tests' helpers (a WebSocket probe and the browser test), run as subprocesses; the overlay tests'
            // click probe (a C Wayland client the tests build); the GNOME Shell tests' observer extension, window and
            // D-Bus driver; files the tests read.
            exclude: ["Web", "Wayland", "GnomeShell", "Fixtures"],
            swiftSettings: strictSwift6),
    ]
)
