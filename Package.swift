// swift-tools-version:6.0
// Ubiquity for Linux — iCloud-style ubiquity containers and live metadata queries.
// Copyright 2026 The Ubiquity for Linux authors. Licensed under the Apache License 2.0 (LICENSE).
// Module layout and data flow: docs/architecture.md. Pure logic first, I/O next, thin executables last.
// Each target's doc comment below summarises its header (owns / must not / depends on) in
// Sources/<Target>/<Target>.swift, or in the file with the entry point for an executable.
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
        .library(name: "UbiquityJSON", targets: ["UbiquityJSON"]),
        .library(name: "UbiquityPredicate", targets: ["UbiquityPredicate"]),
        .library(name: "UbiquityIndex", targets: ["UbiquityIndex"]),
        .library(name: "UbiquityWatch", targets: ["UbiquityWatch"]),
        .library(name: "UbiquityProtocol", targets: ["UbiquityProtocol"]),
        .library(name: "UbiquitySystem", targets: ["UbiquitySystem"]),
        .library(name: "UbiquityKeyValue", targets: ["UbiquityKeyValue"]),
        .library(name: "UbiquityTOML", targets: ["UbiquityTOML"]),
        .library(name: "UbiquityServer", targets: ["UbiquityServer"]),
        .library(name: "UbiquityKit", targets: ["UbiquityKit"]),
        .executable(name: "ubiquityd", targets: ["ubiquityd"]),
        .library(name: "GroceryStore", targets: ["GroceryStore"]),
        .executable(name: "ubiq", targets: ["ubiq"]),
        .executable(name: "grocery", targets: ["grocery"]),
        // The real daemon and the two-device rig, for the Benchmarks package (KeyValueBenchmarks).
        .library(name: "UbiquityTesting", targets: ["UbiquityTesting"]),
        // The invariants of the fuzz targets, for the Fuzz package (make fuzz).
        .library(name: "UbiquityFuzzing", targets: ["UbiquityFuzzing"]),
    ],
    dependencies: [
        // CLI parsing for every executable (ubiq, later ubiquityd and grocery).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Sockets, the event loop and async channels for the daemon and the client library.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        // LineBasedFrameDecoder: the protocol's JSON-lines framing on both ends.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // Logging API; our journald handler (UbiquityServer/Systemd) plugs into it.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The daemon as a ServiceGroup: SIGTERM/SIGINT graceful shutdown, SIGHUP via UnixSignals.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // SQLite (Debian's libsqlite3) for the stores' local cache; 7.10.0 is the first to link on Linux.
    ],
    targets: [
        // MARK: Pure logic (no I/O, no Glibc)

        /// How every module declares its stable error codes (one `String` enum per error type),
        /// and `CodedError` (code, message, details) for the errors that are only that.
        /// Below everything but JSON values, so that the predicate, index and watch modules can use it too.
        .target(
            name: "UbiquityErrors",
            dependencies: ["UbiquityJSON"],
            swiftSettings: swiftSettings
        ),

        /// JSON values (JSONValue) and JSON as text (JSONLine): one value per line, compact, keys
        /// sorted, and parsed back; the wire's lines, predicate arguments and the key-value
        /// store's files. A leaf: no I/O, no protocol, no query language.
        .target(
            name: "UbiquityJSON",
            dependencies: ["CUbiquityBytes"],
            swiftSettings: swiftSettings
        ),

        /// The NSPredicate / Spotlight query language: lexer, parser, type checker,
        /// evaluator, printer, index hints and sort descriptors.
        .target(
            name: "UbiquityPredicate",
            dependencies: ["UbiquityErrors", "UbiquityJSON"],
            swiftSettings: swiftSettings
        ),

        /// The byte encodings the binary files share: little-endian integers, LEB128 and zigzag
        /// varints, length-prefixed bytes (ByteWriter) and CRC-32 (zlib's). Written by the saved
        /// index and by store segments alike; each format keeps its own fields and reader.
        .target(
            name: "UbiquityBinary",
            dependencies: ["CZlib"],
            swiftSettings: swiftSettings
        ),

        /// The item model, the in-memory index with its name index, and the live-query engine.
        /// Pure: it is fed FileSystemChange batches and never touches the file system itself.
        .target(
            name: "UbiquityIndex",
            dependencies: ["UbiquityPredicate", "UbiquityBinary", "CUbiquitySystem", "CUbiquityBytes"],
            swiftSettings: swiftSettings
        ),

        /// Relational stores that sync (docs/stores.md): the schema, the hybrid logical clock, the
        /// log segment format and the merge engine. Pure: the daemon will do the I/O and the SQLite cache.
        .target(
            name: "UbiquityStore",
            dependencies: ["UbiquityErrors", "UbiquityJSON", "UbiquityBinary"],
            swiftSettings: swiftSettings
        ),

        /// The TOML subset ubiquityd.toml is written in: bytes to a table whose every key and value
        /// keeps its line and column. Pure: no Glibc, no Foundation.
        .target(
            name: "UbiquityTOML",
            swiftSettings: swiftSettings
        ),

        // MARK: I/O: the only doors to the kernel

        /// The key-value store's logic: typed values, one device's file, the merge of every
        /// device's file (last writer wins) and the quotas. Pure: the daemon does its I/O.
        .target(
            name: "UbiquityKeyValue",
            dependencies: ["UbiquityJSON", "UbiquityPredicate", "UbiquityErrors"],
            swiftSettings: swiftSettings
        ),

        /// statx, xattrs, eventfd, dirent names and mallopt: prefixed C wrappers for what Swift cannot import.
        .target(name: "CUbiquitySystem"),

        /// Byte scans Swift does not vectorise (SSE2): the run of JSON string text that needs no look.
        .target(name: "CUbiquityBytes"),

        /// Every file-system observation: inotify watcher, raw-syscall crawler, rename pairing,
        /// overflow rescans, watch budget, cookie sync. Feeds UbiquityIndex with FileSystemChange batches.
        .target(
            name: "UbiquityWatch",
            dependencies: ["UbiquityIndex", "UbiquitySystem", "CUbiquitySystem"],
            swiftSettings: swiftSettings
        ),

        /// The wire protocol: JSON lines, the operations (one file each, listed in one registry),
        /// responses, events, error codes and limits. Shared by the daemon and every client; no sockets here.
        .target(
            name: "UbiquityProtocol",
            dependencies: ["UbiquityPredicate", "UbiquityStore", "UbiquityJSON", "UbiquityErrors", "CUbiquitySystem", "CUbiquityBytes"],
            swiftSettings: swiftSettings,
            plugins: ["OperationRegistryPlugin"]
        ),

        /// Lists the files of UbiquityProtocol's Operations/ folder as `Operations.declared` at build
        /// time, so an operation is declared in one file and listed nowhere else.
        .plugin(
            name: "OperationRegistryPlugin",
            capability: .buildTool(),
            dependencies: ["OperationRegistryGenerator"]
        ),

        /// The plugin's tool: reads each declaration file's name and checks it declares that type.
        .executableTarget(
            name: "OperationRegistryGenerator",
            swiftSettings: swiftSettings
        ),

        /// The one door to the kernel (the project's NIOPosix): `System.call` and one `SystemCallError`,
        /// `Directory` (descriptor-relative, `O_NOFOLLOW`, bounded reads, listing and removal), the
        /// one durable replace, and client paths as bytes opened beneath a held directory
        /// (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS). Used by the watcher, the daemon,
        /// UbiquityKit and GroceryStore.
        .target(
            name: "UbiquitySystem",
            dependencies: ["UbiquityErrors", "CUbiquitySystem"],
            swiftSettings: swiftSettings
        ),

        /// zlib: crc32_z and crc32_combine, behind UbiquityBinary's CRC32 (zlib1g-dev).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        /// A store on one device's disk (docs/stores.md): its folder in the container (segments
        /// written durably, other devices' segments read without following links) and its SQLite
        /// cache (UbiquitySQLite), each segment imported exactly once. Below the protocol: the daemon serves it (UbiquityServer/Stores).
        .target(
            name: "UbiquityStoreFiles",
            dependencies: ["UbiquityStore", "UbiquitySystem", "UbiquityJSON", "UbiquitySQLite"],
            swiftSettings: swiftSettings
        ),

        /// A connection to one SQLite database as the stores' caches use it: typed values, kept
        /// statements, transactions. Our own rather than GRDB, which needs all of Foundation (and so
        /// ICU's data) on Linux.
        .target(
            name: "UbiquitySQLite",
            dependencies: ["CSQLite"],
            swiftSettings: swiftSettings
        ),

        /// SQLite's C interface (libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        /// libsystemd: sd_notify, sd_listen_fds, sd_journal_sendv (libsystemd-dev).
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        /// The daemon as a library: configuration, the socket server and its sessions, one
        /// handler per protocol operation, authorisation, the key-value and relational stores, published
        /// snapshots and their HTTP/1 listener, systemd glue (notify, watchdog, socket activation, journald).
        .target(
            name: "UbiquityServer",
            dependencies: [
                "UbiquityProtocol", "UbiquityJSON", "UbiquityIndex", "UbiquityWatch", "UbiquityTOML", "UbiquityKeyValue", "UbiquityStore", "UbiquityStoreFiles", "UbiquitySystem", "CSystemd", "CUbiquitySystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        /// The Swift client library: MetadataQuery (shaped like NSMetadataQuery), KeyValueStore
        /// (shaped like NSUbiquitousKeyValueStore) and UbiquityContainer, over the daemon's socket.
        .target(
            name: "UbiquityKit",
            dependencies: [
                "UbiquityProtocol", "UbiquityPredicate", "UbiquityKeyValue", "UbiquityStore", "UbiquitySystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),

        /// The shopping list (docs/grocery.md): item ids, item files, the grocery.gro package with its
        /// images, and the live list on a MetadataQuery. Talks to the daemon only via UbiquityKit.
        .target(
            name: "GroceryStore",
            dependencies: ["UbiquityKit", "UbiquityPredicate", "UbiquityProtocol", "UbiquityStore", "UbiquitySystem", "UbiquityJSON"],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables (argument parsing and wiring only)

        /// What ubiq and grocery share around the argument parser: global options before the
        /// subcommand, the daemon's `--socket`/`--timeout`, the exit statuses of failures, and
        /// writing to stdout/stderr that ends quietly when the reader goes away.
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "CUbiquitySystem", "UbiquityKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        /// `ubiquityd`: the daemon; and, run under the name `ubiq` or `grocery` (the Debian package's
        /// links to it), that command: one binary carries the runtime, Foundation and NIO once.
        .executableTarget(
            name: "ubiquityd",
            dependencies: [
                "UbiquityServer", "CommandLineSupport", "UbiqCommands", "GroceryCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        /// The query CLI `ubiq` as a library: predicate tools, and queries against the daemon through
        /// UbiquityKit. Run by the `ubiq` executable and by `ubiquityd` under the name `ubiq`.
        .target(
            name: "UbiqCommands",
            dependencies: [
                "CommandLineSupport",
                "UbiquityJSON", "UbiquityPredicate", "UbiquityProtocol", "UbiquityKit", "UbiquityKeyValue", "UbiquityStore", "UbiquitySystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        /// The shopping list CLI `grocery` as a library (docs/grocery.md; the list logic lives in
        /// GroceryStore). Run by the `grocery` executable and by `ubiquityd` under the name `grocery`.
        .target(
            name: "GroceryCommands",
            dependencies: [
                "CommandLineSupport",
                "GroceryStore", "UbiquityKit", "UbiquityProtocol", "UbiquitySystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        /// `ubiq`: UbiqCommands on its own, for development and the tests.
        .executableTarget(
            name: "ubiq",
            dependencies: ["UbiqCommands"],
            swiftSettings: swiftSettings
        ),

        /// `grocery`: GroceryCommands on its own, for development and the tests.
        .executableTarget(
            name: "grocery",
            dependencies: ["GroceryCommands"],
            swiftSettings: swiftSettings
        ),

        /// `demo-sync`: the two-device rig of the tests (UbiquityTesting's TwoDevices) for a person
        /// (`make demo-sync`); a development tool, never installed.
        .executableTarget(
            name: "demo-sync",
            dependencies: ["UbiquityTesting"],
            swiftSettings: swiftSettings
        ),

        /// `store-rig`: one device's store driven from the command line, for the crash tests (a
        /// child to `kill -9` mid-write or mid-import) and the store's measurements; never installed.
        .executableTarget(
            name: "store-rig",
            dependencies: ["UbiquityStoreFiles", "UbiquityStore", "UbiquitySystem"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests

        /// Helpers shared by the test targets: seeded randomness, a subscriber's view of a live
        /// query, waiting for an event with a deadline (firstWithin), the real daemon inside the
        /// test process on a temporary socket (withDaemon, the default) or as a process for what
        /// needs one (TestDaemon), a raw JSON-lines client, running a built CLI or a reference program
        /// such as python3 (BuiltExecutable, ExpectedOutput), checking and comparing every `--help`
        /// page at 80 columns (HelpPages, HelpLayout), reading a child's output lines with a
        /// deadline (LineReader), and a container watched by a real FileWatcher feeding a real
        /// index with waits on what it recorded (WatchHarness, Recorder, FS, and crawl/index
        /// summaries to compare).
        .target(
            name: "UbiquityTesting",
            dependencies: ["UbiquityIndex", "UbiquityProtocol", "UbiquityJSON", "UbiquityWatch", "UbiquitySystem", "UbiquityServer",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),

        /// The key-value store's values, file format, merge and quotas, without I/O.
        .testTarget(
            name: "UbiquityKeyValueTests",
            dependencies: ["UbiquityKeyValue", "UbiquityJSON"],
            swiftSettings: swiftSettings
        ),
        /// The store's pure core: schema evolution, clocks, segments (fuzzed) and the merge's
        /// convergence under any order and duplication of segments, by seeded property tests.
        /// What must hold for any input to each reader of untrusted bytes: the fuzz targets (Fuzz/)
        /// check it on every input, UbiquityFuzzingTests on every committed corpus input. No I/O.
        .target(
            name: "UbiquityFuzzing",
            dependencies: ["UbiquityJSON", "UbiquityPredicate", "UbiquityProtocol", "UbiquityStore", "UbiquityKeyValue", "UbiquityTOML", "UbiquityIndex", "UbiquityServer", "UbiquityKit", "GroceryStore", "UbiquityBinary",
                           .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UbiquityFuzzingTests",
            dependencies: ["UbiquityFuzzing"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UbiquityStoreTests",
            dependencies: ["UbiquityStore", "UbiquityBinary", "UbiquityJSON", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        /// A store on disk: local writes to segments and SQLite, imports of other devices' segments
        /// exactly once, hostile segment files, rebuilding the cache, and kill -9 mid-write and mid-import.
        .testTarget(
            name: "UbiquityStoreFilesTests",
            dependencies: ["UbiquityStoreFiles", "UbiquityStore", "UbiquitySystem", "UbiquityTesting", "store-rig"],
            swiftSettings: swiftSettings
        ),
        /// Our SQLite connection against real database files: every storage class both ways, texts
        /// holding NUL, empty blobs, rollback, a locked database, a file that is not a database.
        .testTarget(
            name: "UbiquitySQLiteTests",
            dependencies: ["UbiquitySQLite"],
            swiftSettings: swiftSettings
        ),
        /// The door: system-call errors, the durable replace and `Directory` against real links,
        /// FIFOs and failures; client paths: splitting on bytes, validation, and opening beneath a
        /// directory against real symbolic links (both openat2 and the component-by-component walk), fuzzed.
        .testTarget(
            name: "UbiquitySystemTests",
            dependencies: ["UbiquitySystem", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UbiquityProtocolTests",
            dependencies: ["UbiquityProtocol", "UbiquityJSON", "UbiquityTesting", "UbiquityFuzzing"],
            swiftSettings: swiftSettings
        ),
        /// UbiquityKit: the client's reading of the daemon's stream (lines cut at random, lent
        /// buffers), the README's example kept compiling, and Document's package saves against the
        /// in-process daemon.
        .testTarget(
            name: "UbiquityKitTests",
            dependencies: ["UbiquityKit", "UbiquityProtocol", "UbiquityPredicate", "UbiquityStore", "UbiquitySystem", "UbiquityTesting",
                           .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        /// Configuration, systemd glue and the server, in-process; plus the real `ubiquityd`
        /// process on a real socket (TestDaemon), through UbiquityKit and raw JSON lines.
        .testTarget(
            name: "UbiquityServerTests",
            dependencies: ["UbiquityServer", "UbiquityTOML", "UbiquityKit", "UbiquityTesting", "ubiquityd", "UbiquityKeyValue", "UbiquityStore",
                           // NIOAsyncTestingChannel: the connection's framing tested without a socket.
                           .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),

        /// The TOML subset: every construct, every error's position, and random documents checked
        /// against Python's tomllib (python3 ≥ 3.11).
        .testTarget(
            name: "UbiquityTOMLTests",
            dependencies: ["UbiquityTOML", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UbiquityPredicateTests",
            dependencies: ["UbiquityPredicate", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UbiquityIndexTests",
            dependencies: ["UbiquityIndex", "UbiquityBinary", "UbiquityTesting", "CUbiquitySystem"],
            swiftSettings: swiftSettings
        ),
        /// Real inotify on real temporary directories, and the engine on top of it.
        .testTarget(
            name: "UbiquityWatchTests",
            dependencies: ["UbiquityWatch", "UbiquitySystem", "UbiquityTesting"],
            swiftSettings: swiftSettings
        ),
        /// Grocery's ids, storage formats and live list; the live list against the real daemon.
        .testTarget(
            name: "GroceryStoreTests",
            dependencies: ["GroceryStore", "UbiquityTesting", "ubiquityd"],
            swiftSettings: swiftSettings
        ),
        /// Runs the built `ubiq` binary; `--help` output is compared with Expected/.
        .testTarget(
            name: "ubiqTests",
            dependencies: ["ubiq", "ubiquityd", "grocery", "UbiquityTesting", "UbiquityJSON", "UbiquityProtocol", "UbiquitySystem", "CommandLineSupport"],
            exclude: ["Expected"],
            swiftSettings: swiftSettings
        ),
        /// Runs the built `grocery` binary against the real daemon: watch in one process, changes
        /// from another; `--help` output is compared with Expected/; `demo-sync`'s printed commands.
        .testTarget(
            name: "groceryTests",
            dependencies: ["grocery", "ubiquityd", "demo-sync", "UbiquityTesting", "GroceryStore", "UbiquityStore"],
            exclude: ["Expected"],
            swiftSettings: swiftSettings
        ),
        /// Runs the built `ubiquityd` binary; its `--help` output is compared with Expected/; links
        /// to it named `ubiq` and `grocery` print what the `ubiq` and `grocery` binaries print.
        .testTarget(
            name: "ubiquitydTests",
            dependencies: ["ubiquityd", "ubiq", "grocery", "UbiquityTesting"],
            exclude: ["Expected"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
