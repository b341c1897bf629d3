// swift-tools-version:6.1
// The in-process benchmarks (ordo-one/benchmark with its malloc interposer), in a package of their own so that
// the root package's `swift build --build-tests` (CI) never builds the benchmark framework. Run them from here:
//
//     cd Benchmarks && swift package benchmark
//
// docs/PERFORMANCE.md explains each benchmark and what it is compared with.
//
// The workloads (EdgeSwipeBenchSupport) are not a product of the root package, so that its users never see them,
// and a package can only use another's products. So this package builds the modules the benchmarks need itself,
// from the very same sources: each folder under Sources/ here is a link to the root's (Sources/EdgeSwipeCore ->
// ../../Sources/EdgeSwipeCore). The targets below repeat the root's declarations of those modules, and must follow
// them when those change (their dependencies, and the settings the root builds them with).
import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "EdgeSwipeBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.7.0"),
    ],
    targets: [
        .target(
            name: "EdgeSwipeVocabulary",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "EdgeSwipeCore",
            dependencies: ["EdgeSwipeVocabulary", .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "EdgeSwipeSystem",
            dependencies: ["EdgeSwipeVocabulary", "CSystemCalls", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictSwift6
        ),
        .systemLibrary(name: "CSystemCalls"),
        .target(name: "EdgeSwipeFingerScript", dependencies: ["EdgeSwipeCore"], swiftSettings: strictSwift6),
        .systemLibrary(
            name: "CInput",
            pkgConfig: "libinput libevdev libudev",
            providers: [.apt(["libinput-dev", "libevdev-dev", "libudev-dev"])]
        ),
        .target(
            name: "EdgeSwipeInput",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeSystem", "CInput",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .target(
            name: "EdgeSwipeRecordings",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeSystem", "EdgeSwipeInput", "EdgeSwipeFingerScript", "CYAML",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift6
        ),
        .target(name: "EdgeSwipeProtocol", dependencies: ["EdgeSwipeVocabulary"], swiftSettings: strictSwift6),
        .target(name: "EdgeSwipeEngineWire", dependencies: ["EdgeSwipeCore", "EdgeSwipeProtocol"], swiftSettings: strictSwift6),
        .target(
            name: "EdgeSwipeBenchSupport",
            dependencies: [
                "EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeInput", "EdgeSwipeRecordings", "EdgeSwipeProtocol",
                "EdgeSwipeEngineWire",
            ],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "EdgeSwipeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "EdgeSwipeBenchSupport", "EdgeSwipeCore",
            ],
            path: "EdgeSwipeBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
