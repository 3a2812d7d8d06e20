// swift-tools-version:6.0
// Ubiquity for Linux — iCloud-style ubiquity containers and live metadata queries.
// Module layout: ../shared/SPEC.md §3. Pure logic first, I/O next, thin executables last.
import PackageDescription

// MARK: - Shared settings

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// MARK: - Package

let package = Package(
    name: "Ubiquity",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "UbiquityPredicate", targets: ["UbiquityPredicate"]),
        .library(name: "UbiquityIndex", targets: ["UbiquityIndex"]),
        .library(name: "UbiquityWatch", targets: ["UbiquityWatch"]),
        .executable(name: "ubiq", targets: ["ubiq"]),
    ],
    dependencies: [
        // CLI parsing for every executable (ubiq, later ubiquityd and grocery).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // MARK: Pure logic (no I/O, no Glibc)

        /// The NSPredicate / Spotlight query language: lexer, parser, type checker,
        /// evaluator, printer, index hints and sort descriptors.
        .target(
            name: "UbiquityPredicate",
            swiftSettings: swiftSettings
        ),

        /// The item model, the in-memory index with its name index, and the live-query engine.
        /// Pure: it is fed FileSystemChange batches and never touches the file system itself.
        .target(
            name: "UbiquityIndex",
            dependencies: ["UbiquityPredicate"],
            swiftSettings: swiftSettings
        ),

        // MARK: I/O: the only doors to the kernel

        /// statx, xattrs, eventfd and dirent names: prefixed C wrappers for what Swift cannot import.
        .target(name: "CUbiquitySystem"),

        /// inotify watcher, raw-syscall crawler, rename pairing, overflow rescans, watch budget,
        /// cookie sync. Feeds UbiquityIndex with FileSystemChange batches.
        .target(
            name: "UbiquityWatch",
            dependencies: ["UbiquityIndex", "CUbiquitySystem"],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables (argument parsing and wiring only)

        /// `ubiq`: the query CLI (predicate tools today; daemon queries later).
        .executableTarget(
            name: "ubiq",
            dependencies: [
                "UbiquityPredicate",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests

        /// Helpers shared by the test targets: seeded randomness, a subscriber's view of a live
        /// query, reading events with a deadline.
        .target(
            name: "UbiquityTesting",
            dependencies: ["UbiquityIndex"],
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "UbiquityPredicateTests",
            dependencies: ["UbiquityPredicate", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UbiquityIndexTests",
            dependencies: ["UbiquityIndex", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        /// Real inotify on real temporary directories, and the engine on top of it.
        .testTarget(
            name: "UbiquityWatchTests",
            dependencies: ["UbiquityWatch", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        /// Runs the built `ubiq` binary; `--help` output is compared with Snapshots/.
        .testTarget(
            name: "ubiqTests",
            dependencies: ["ubiq"],
            exclude: ["Snapshots"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
