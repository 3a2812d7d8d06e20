// swift-tools-version:6.0
// Predicate benchmarks: a separate package so that the main build and `make test` never
// compile them. Run with `make bench` (= `cd Benchmarks && swift run -c release PredicateBenchmarks`).
import PackageDescription

let package = Package(
    name: "PredicateBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Ubiquity", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "PredicateBenchmarks",
            dependencies: [
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
