import UbiquitySystem
public import UbiquityIndex
public import UbiquityKeyValue
public import UbiquityProtocol
public import UbiquityStoreFiles
import Glibc

/// Everything `ubiquityd` is told: where to listen, which containers to serve, how to watch
/// them and which limits to enforce.
///
/// Where it comes from, first match wins (docs/configuration.md):
/// 1. `--root DIR`: ``rootOnly(_:socketPath:)``, every container-id sub-directory of DIR;
/// 2. `--config FILE`: ``load(path:uid:environment:)``;
/// 3. ``defaultPath(uid:environment:)`` if that file exists;
/// 4. ``embeddedDefault(uid:environment:)``.
/// `--socket PATH` then overrides ``socketPath``. ``select(configPath:root:socketPath:uid:environment:)``
/// applies exactly these rules.
///
/// The value is pure data: ``resolveContainers()`` does the I/O of turning roots and
/// declarations into the containers served right now (again on every SIGHUP).
public struct DaemonConfiguration: Sendable, Equatable {
    /// The Unix socket to bind when systemd passes none (docs/configuration.md).
    public var socketPath: String
    /// Directories whose container-id sub-directories are served.
    public var roots: [RootDeclaration]
    /// Containers named one by one, in file order; the first is the default container.
    public var containers: [ContainerDeclaration]
    /// The batching interval of queries that name none (guarantee 4 in docs/live-queries.md).
    public var batchingInterval: Duration
    /// The most inotify watches to hold; nil: 90% of `max_user_watches`.
    public var watchBudget: Int?
    /// How often unwatched subtrees are rescanned and missing containers looked for.
    public var rescanInterval: Duration
    /// How much change history `since` queries are answered from.
    public var history = ChangeHistory.Retention()
    /// Whether the index is saved in the state directory (so `since` survives a restart).
    public var savesIndex = true
    /// How often a changed index is saved (besides at shutdown and after the first crawl).
    public var indexSaveInterval: Duration = .seconds(300)
    /// Protocol limits; `limits.defaultBatchingInterval` always equals ``batchingInterval``.
    public var limits: ServerLimits
    /// One of ``logLevels``.
    public var logLevel: String
    /// The key-value store's quotas (`[key_value]`).
    public var keyValueQuota = KVQuota()
    /// The publish listener and its bounds (`[publish]`).
    public var publish = PublishSettings()
    /// The sync engine the daemon follows (`[sync]`); nil: none.
    public var sync: SyncEngineSettings?
    /// When relational stores write snapshots and call a device silent (`[stores]`).
    public var storeCompaction = CompactionPolicy()
    /// Where this came from: `embedded default`, `--root DIR`, or the file's path.
    public var source: String

    /// The accepted `log_level` values, quietest last (swift-log's levels).
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The package type every default root declares (Grocery declares `gro`).
    public static let defaultPackageTypes = ["gro": "com.example.grocery.package"]

    /// The demo container of the embedded default.
    public static let demoContainerID = "com.example.grocery"

    public init(
        socketPath: String, roots: [RootDeclaration] = [], containers: [ContainerDeclaration] = [],
        batchingInterval: Duration = .milliseconds(50), watchBudget: Int? = nil,
        rescanInterval: Duration = .seconds(10), limits: ServerLimits = ServerLimits(),
        logLevel: String = "info", source: String
    ) {
        self.socketPath = socketPath
        self.roots = roots
        self.containers = containers
        self.batchingInterval = batchingInterval
        self.watchBudget = watchBudget
        self.rescanInterval = rescanInterval
        self.limits = limits
        self.logLevel = logLevel
        self.source = source
        self.limits.defaultBatchingInterval = batchingInterval.seconds
    }

    // MARK: - Sources

    /// The zero-configuration default (docs/configuration.md): one per-user root
    /// `$XDG_DATA_HOME/ubiquity/containers` (else `$HOME/.local/share/…`, else the home directory of
    /// the passwd entry, else `/tmp/ubiquity-UID/containers`) declaring `gro`, and the demo container
    /// `com.example.grocery` in it, created on first run.
    ///
    /// - Parameters:
    ///   - uid: The daemon's effective uid (picks the socket path).
    ///   - environment: Only `XDG_DATA_HOME`, `HOME`, `RUNTIME_DIRECTORY` and `XDG_RUNTIME_DIR` are read; relative
    ///     values are ignored, as the XDG base directory specification asks.
    public static func embeddedDefault(uid: UInt32, environment: [String: String]) -> DaemonConfiguration {
        let dataHome: String
        if let xdg = absolute(environment["XDG_DATA_HOME"]) {
            dataHome = xdg
        } else if let home = absolute(environment["HOME"]) ?? absolute(Accounts.homeDirectory(uid: uid)) {
            dataHome = join(home, ".local/share")
        } else {
            dataHome = "/tmp/ubiquity-\(uid)"
        }
        let root = join(dataHome, "ubiquity/containers")
        // The literal is a valid id; the force is checked by the embedded-default test.
        let demo = try! ContainerID(demoContainerID)
        return DaemonConfiguration(
            socketPath: defaultSocketPath(uid: uid, environment: environment),
            roots: [RootDeclaration(path: root, packageTypes: defaultPackageTypes)],
            containers: [ContainerDeclaration(id: demo, packageTypes: defaultPackageTypes, create: true)],
            source: "embedded default")
    }

    /// What `ubiquityd --root DIR --socket PATH` serves: every sub-directory of `dir` whose name is
    /// a container id, with the default `gro` package type; nothing is declared or created.
    ///
    /// - Parameter dir: Made absolute against the current directory when relative.
    public static func rootOnly(_ dir: String, socketPath: String) -> DaemonConfiguration {
        var path = dir
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                path = join(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), path)
            }
        }
        return DaemonConfiguration(
            socketPath: socketPath,
            roots: [RootDeclaration(path: normalize(path), packageTypes: defaultPackageTypes)],
            source: "--root \(dir)")
    }

    /// The socket the daemon binds when neither `socket` nor `--socket` names one and systemd
    /// passes none: `$RUNTIME_DIRECTORY/ubiquityd.sock` when the service manager created a runtime
    /// directory for it (`RuntimeDirectory=ubiquity`: `/run/ubiquity` for the system service
    /// whatever user it runs as, `$XDG_RUNTIME_DIR/ubiquity` for the per-user one), else the
    /// protocol's default for the uid (``WireProtocol/defaultSocketPath(uid:environment:)``), which
    /// is where clients look.
    ///
    /// - Parameter environment: `RUNTIME_DIRECTORY` (its first entry when systemd lists several,
    ///   colon-separated; relative entries are ignored), then `XDG_RUNTIME_DIR`.
    public static func defaultSocketPath(uid: UInt32, environment: [String: String]) -> String {
        if let first = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first,
           let directory = absolute(String(first)) {
            return join(directory, WireProtocol.socketFileName)
        }
        return WireProtocol.defaultSocketPath(uid: uid, environment: environment)
    }

    /// The file the daemon reads when given no `--config`: `/etc/ubiquity/ubiquityd.toml` for root,
    /// `$XDG_CONFIG_HOME/ubiquity/ubiquityd.toml` (else `$HOME/.config/…`) otherwise; nil when
    /// neither variable holds an absolute path. The file need not exist.
    public static func defaultPath(uid: UInt32, environment: [String: String]) -> String? {
        if uid == 0 { return "/etc/ubiquity/ubiquityd.toml" }
        if let xdg = absolute(environment["XDG_CONFIG_HOME"]) { return join(xdg, "ubiquity/ubiquityd.toml") }
        if let home = absolute(environment["HOME"]) { return join(home, ".config/ubiquity/ubiquityd.toml") }
        return nil
    }

    /// Applies the precedence rules of the command line: `--root` > `--config` > the default
    /// file if it exists > the embedded default; `--socket` overrides the socket of any of them.
    ///
    /// - Throws: ``ConfigurationError`` when `--root` and `--config` are both given, or the
    ///   chosen file cannot be read or is invalid.
    public static func select(
        configPath: String?, root: String?, socketPath: String?, uid: UInt32, environment: [String: String]
    ) throws(ConfigurationError) -> DaemonConfiguration {
        var configuration: DaemonConfiguration
        if let root {
            if let configPath {
                throw ConfigurationError(code: .conflict, path: configPath,
                    message: "--config and --root exclude each other: --root serves DIR without a file")
            }
            configuration = rootOnly(root, socketPath: socketPath ?? defaultSocketPath(uid: uid, environment: environment))
        } else if let configPath {
            configuration = try load(path: configPath, uid: uid, environment: environment)
        } else if let path = defaultPath(uid: uid, environment: environment), access(path, F_OK) == 0 {
            configuration = try load(path: path, uid: uid, environment: environment)
        } else {
            configuration = embeddedDefault(uid: uid, environment: environment)
        }
        if let socketPath { configuration.socketPath = socketPath }
        return configuration
    }

    /// Where a declared container lives: its `path`, else `<first root>/<id>`; nil only when it
    /// has no path and there is no root (``parse(_:path:uid:environment:)`` refuses that).
    public func path(of container: ContainerDeclaration) -> String? {
        container.path ?? roots.first.map { Self.join($0.path, container.id.rawValue) }
    }

    // MARK: - Path helpers

    static func absolute(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return normalize(value)
    }

    static func join(_ base: String, _ tail: String) -> String {
        base.hasSuffix("/") ? base + tail : base + "/" + tail
    }

    /// Collapses repeated slashes and drops a trailing one (`/a//b/` → `/a/b`).
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let joined = PathBytes.components(of: path).joined(separator: "/")
        return absolute ? "/" + joined : joined
    }
}

extension Duration {
    /// The duration in seconds, as the protocol's `defaultBatchingInterval` carries it.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
