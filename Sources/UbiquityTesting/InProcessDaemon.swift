import Foundation
import Glibc
import Logging
public import UbiquityServer
import UbiquityWatch

/// The real daemon (watcher, engine, socket server, key-value stores, index store) run inside the
/// test process on a temporary root and socket: the default way a test meets the daemon.
///
/// Built from the same configuration `ubiquityd` reads (`--root`, `--config`, `--socket`,
/// `--log-level`, `STATE_DIRECTORY`) into the same ``DaemonSettings``; ready when the daemon logs
/// `ready` (after binding its socket and crawling every container, as `READY=1`), awaited; stopped
/// by the graceful shutdown SIGTERM triggers, awaited. What it logs is kept in the format the
/// process writes to stderr (``log``, ``waitForLog(_:within:)``).
///
/// For what needs a process of its own (signals, sd_notify, other uids, socket activation,
/// `kill -9`, the binary's output and exit status) use ``TestDaemon``.
///
/// ```swift
/// try await withDaemon { daemon in
///     let client = try RawClient(socket: daemon.socket)
///     try client.send(#"{"id":1,"op":"hello","version":1}"#)
/// }
/// ```
public final class InProcessDaemon: Sendable {
    /// A fresh temporary directory holding `root/`, the socket and `state/`.
    public let directory: String
    /// The container root: one sub-directory per container id.
    public let root: String
    public let socket: String
    public let daemon: Daemon
    private let captured: DaemonLog
    private let running: Task<Void, any Error>

    /// How long a start may take before the daemon counts as never ready (seconds).
    static let readyWithin: Double = 180

    /// The process serving the socket: this one (what `status` reports as the daemon's pid).
    public var pid: Int32 { getpid() }

    /// Creates `containers` under a new root and starts the daemon on it; returns once it is ready.
    ///
    /// - Parameters:
    ///   - arguments: `ubiquityd`'s `--root`, `--config`, `--socket` and `--log-level`, replacing
    ///     the default `--root ROOT --socket SOCKET` when non-nil; `{root}`, `{socket}` and `{dir}`
    ///     stand for ``root``, ``socket`` and ``directory``, as with ``TestDaemon``.
    ///   - environment: Read by the configuration as the process's environment would be (over
    ///     this process's own); `STATE_DIRECTORY` is `{dir}/state` unless given.
    ///   - prepare: Called with ``root`` before the daemon starts (files its first crawl finds).
    ///   - adjust: Changes the settings built from the configuration before the daemon is made
    ///     (what no configuration key sets, such as the watcher's tag pass timing).
    ///   - executor: Where the daemon's tasks run; Swift's shared pool, as in `ubiquityd`, unless
    ///     a test orders them itself.
    ///   - started: Called once the daemon's task is made (its `run()` may not have begun yet),
    ///     before waiting for `ready`; when it throws, the daemon's task is cancelled and awaited.
    public init(containers: [String] = ["com.example.grocery"], arguments: [String]? = nil,
                environment: [String: String] = [:], prepare: ((_ root: String) throws -> Void)? = nil,
                adjust: ((inout DaemonSettings) -> Void)? = nil, executor: any TaskExecutor = globalConcurrentExecutor,
                started: ((InProcessDaemon) async throws -> Void)? = nil) async throws {
        var template = Array("/tmp/ubqi-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        root = directory + "/root"
        socket = directory + "/s.sock"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for container in containers {
            try FileManager.default.createDirectory(atPath: root + "/" + container + "/Documents",
                                                    withIntermediateDirectories: true)
        }
        try prepare?(root)
        let options = try Self.options((arguments ?? ["--root", "{root}", "--socket", "{socket}"]).map { [root, socket, directory] in
            $0.replacingOccurrences(of: "{root}", with: root).replacingOccurrences(of: "{socket}", with: socket)
                .replacingOccurrences(of: "{dir}", with: directory)
        })
        var env = ProcessInfo.processInfo.environment
        env["STATE_DIRECTORY"] = directory + "/state"
        env.merge(environment) { _, given in given }
        let select: @Sendable () throws -> DaemonConfiguration = { [env] in
            try DaemonConfiguration.select(configPath: options["--config"], root: options["--root"],
                                           socketPath: options["--socket"], uid: geteuid(), environment: env)
        }
        let configuration = try select()
        captured = DaemonLog(level: Logger.Level(rawValue: options["--log-level"] ?? configuration.logLevel) ?? .info)
        let logger = captured.logger(label: "ubiquityd")
        let resolution = configuration.resolveContainers()
        for problem in resolution.problems { logger.warning("\(problem)") }
        for note in resolution.notes { logger.info("\(note)") }
        // As `ubiquityd` builds its settings from the configuration (its SIGHUP reload included).
        var settings = DaemonSettings(
            containers: resolution.containers, endpoint: .path(configuration.socketPath), limits: configuration.limits,
            watcher: FileWatcher.Configuration(maxWatches: configuration.watchBudget, rescanInterval: configuration.rescanInterval),
            reload: {
                let resolution = try select().resolveContainers()
                for problem in resolution.problems { logger.warning("\(problem)") }
                return resolution.containers
            })
        settings.history = configuration.history
        settings.stateDirectory = env["STATE_DIRECTORY"] ?? directory + "/state"
        if configuration.savesIndex { settings.indexDirectory = settings.stateDirectory }
        settings.indexSaveInterval = configuration.indexSaveInterval
        settings.keyValueQuota = configuration.keyValueQuota
        settings.storeCompaction = configuration.storeCompaction
        settings.publish = configuration.publish
        settings.sync = configuration.sync
        settings.trapsSignals = false
        adjust?(&settings)
        daemon = try Daemon(settings: settings, logger: logger)
        // On the shared pool unless told otherwise, as in `ubiquityd`: a task inherits the test's executor, and under
        // `.ownThreads` every job of the daemon would otherwise get a new thread of its own.
        running = Task(executorPreference: executor) { [daemon, captured] in
            defer { captured.finish() }
            try await daemon.run()
        }
        do { try await started?(self) } catch {
            // Cancelled, not only shut down: before `run()` has made its service group, a
            // graceful shutdown has nothing to reach, and the daemon would run on.
            running.cancel()
            try? await stop()
            throw error
        }
        // The deadline only bounds a daemon that never gets ready: in the first minute of a
        // fresh clone's `make test` every suite starts at once, and a daemon on the shared pool
        // logged `ready` just after 60 s (two tests failed on a daemon that was fine).
        guard try await captured.waitForLine(holding: ["ready", "status="], within: Self.readyWithin) else {
            await daemon.shutDownGracefully()
            let failure = await running.result
            throw TestDaemonError("the in-process daemon was not ready within \(Int(Self.readyWithin)) s (\(failure)):\n\(captured.text)")
        }
    }

    /// `ubiquityd`'s options this daemon understands, by name; any other argument is an error.
    private static func options(_ arguments: [String]) throws -> [String: String] {
        let known: Set = ["--root", "--config", "--socket", "--log-level"]
        var options: [String: String] = [:]
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard known.contains(name), let value = rest.popFirst() else {
                throw TestDaemonError("an in-process daemon takes only \(known.sorted()) with a value; found \(arguments)")
            }
            options[name] = value
        }
        return options
    }

    /// What the daemon logged so far, one line per entry as `ubiquityd` writes them to stderr.
    public var log: String { captured.text }

    /// Waits until a logged line holds every one of `texts`, or fails with the log after `seconds`.
    public func waitForLog(_ texts: String..., within seconds: Double = 30) async throws {
        guard try await captured.waitForLine(holding: texts, within: seconds) else {
            throw TestDaemonError("the daemon logged no line with \(texts) within \(seconds) s:\n\(log)")
        }
    }

    /// `Documents/` of a container under ``root``.
    public func documents(_ container: String = "com.example.grocery") -> String { root + "/" + container + "/Documents" }

    /// Makes a file appear at once (see ``placeAtomically(_:contents:staging:)``).
    @discardableResult
    public func place(_ name: String, in container: String = "com.example.grocery", contents: String) throws -> String {
        try placeAtomically(documents(container) + "/" + name, contents: contents, staging: directory)
    }

    /// Removes a tree the daemon watches (see ``removeWatchedTree(_:within:)``).
    public func removeWatchedTree(_ path: String, within seconds: Double = 10) throws {
        try UbiquityTesting.removeWatchedTree(path, within: seconds)
    }

    /// Graceful shutdown, awaited; then the temporary directory is removed.
    public func stop() async throws {
        await daemon.shutDownGracefully()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await running.value
    }
}

/// Runs `body` with an in-process daemon (``InProcessDaemon``) and always stops it and removes its
/// files afterwards: how a test meets the daemon unless it needs a process (``withTestDaemon``).
public func withDaemon<T>(
    containers: [String] = ["com.example.grocery"], arguments: [String]? = nil, environment: [String: String] = [:],
    prepare: ((_ root: String) throws -> Void)? = nil, _ body: (InProcessDaemon) async throws -> T
) async throws -> T {
    let daemon = try await InProcessDaemon(containers: containers, arguments: arguments, environment: environment, prepare: prepare)
    do {
        let result = try await body(daemon)
        try await daemon.stop()
        return result
    } catch {
        try? await daemon.stop()
        throw error
    }
}
