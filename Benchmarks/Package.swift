// swift-tools-version:6.1
// The in-process benchmarks (ordo-one/benchmark with its malloc interposer), in a package of their own so that
// the root package's `swift build --build-tests` (CI) never builds the benchmark framework. Run them from here:
//
//     cd Benchmarks && swift package benchmark
//
// docs/PERFORMANCE.md explains each benchmark and what it is compared with.
import PackageDescription

// A path dependency is known by its folder's name, which is whatever the clone is called.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "main"

let package = Package(
    name: "EdgeSwipeBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "EdgeSwipeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "EdgeSwipeBenchSupport", package: root),
                .product(name: "EdgeSwipeCore", package: root),
            ],
            path: "EdgeSwipeBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
