// swift-tools-version:6.0
// Benchmarks: a separate package so that the main build and `make test` never compile them.
// `make bench` runs PredicateBenchmarks, IndexBenchmarks, WatchBenchmarks and KeyValueBenchmarks (see README.md).
import PackageDescription

let package = Package(
    name: "PredicateBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Ubiquity", path: ".."),
    ],
    targets: [
        /// Seeded randomness, progress output and resident memory, shared by every benchmark.
        .target(
            name: "BenchmarkSupport",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
        /// Index memory per item and name-index query time on synthetic trees of 10k to 1M items.
        .executableTarget(
            name: "IndexBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "UbiquityIndex", package: "Ubiquity"),
                .product(name: "UbiquityPredicate", package: "Ubiquity"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
        /// The watcher and the engine on generated real trees: crawl vs `find`, time to the first
        /// answer, memory per item, change-to-notification latency and a 100,000-file burst.
        .executableTarget(
            name: "WatchBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "UbiquityWatch", package: "Ubiquity"),
                .product(name: "UbiquityIndex", package: "Ubiquity"),
                .product(name: "UbiquityPredicate", package: "Ubiquity"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
        /// The key-value store through the real daemon: set → acknowledged latency (fsync
        /// included), and set on device A → kv.changed on device B next to Syncthing's own time
        /// to land the file (TwoDevices: real Syncthing in a private network namespace; root).
        .executableTarget(
            name: "KeyValueBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "UbiquityTesting", package: "Ubiquity"),
                .product(name: "UbiquityPredicate", package: "Ubiquity"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
        .executableTarget(
            name: "PredicateBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "UbiquityPredicate", package: "Ubiquity"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
