// swift-tools-version:6.0
// Fuzz: coverage-guided fuzzing of every reader of untrusted bytes, under AddressSanitizer.
// A package of its own so that the main build and `make test` never compile it; `make fuzz`
// builds it with `-sanitize=fuzzer,address` in every module (docs/testing.md).
// Each target's invariant lives in the main package's UbiquityFuzzing, which `make test` also
// checks on every committed input (Fuzz/Corpus, Fuzz/Regressions).
import PackageDescription

let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"]),
]
// lld: the default gold linker stops with an internal error on these objects.
let linking: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]

/// One executable per reader: `Fuzz<Name>` runs UbiquityFuzzing's check of that name.
func target(_ name: String) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzDriver"], swiftSettings: settings, linkerSettings: linking)
}

let package = Package(
    name: "Fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Ubiquity", path: ".."),
    ],
    targets: [
        /// libFuzzer's driver around a UbiquityFuzzing check: an input that breaks the check's
        /// invariant stops the run with the check's sentence, and libFuzzer keeps the input.
        .target(
            name: "FuzzDriver",
            dependencies: [.product(name: "UbiquityFuzzing", package: "Ubiquity")],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
        ),
        target("FuzzRequestLine"),
        target("FuzzPredicate"),
        target("FuzzStoreSegment"),
        target("FuzzKeyValueFile"),
        target("FuzzTOML"),
        target("FuzzSavedIndex"),
        target("FuzzSavedIndexJournal"),
        target("FuzzServerMessage"),
        target("FuzzItemListScan"),
        target("FuzzConflictName"),
        target("FuzzGroceryPackage"),
        target("FuzzConfiguration"),
        target("FuzzLineSplitter"),
        target("FuzzRememberedAnswers"),
    ]
)
