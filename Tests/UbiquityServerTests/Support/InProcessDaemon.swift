import Foundation
import Glibc
import Logging
import UbiquityServer
import UbiquityTesting

/// The real ``Daemon`` (watcher, engine, socket server) run inside the test process on a
/// temporary root and socket: no process to spawn, readiness is the server's own "bound" signal
/// (awaited, never polled), and stopping is the same graceful shutdown SIGTERM triggers, awaited.
///
/// For what needs a process of its own (signals, sd_notify, uids, socket activation, exit
/// statuses, the log format) use ``TestDaemon``.
final class InProcessDaemon: Sendable {
    let directory: String
    let root: String
    let socket: String
    let daemon: Daemon
    private let running: Task<Void, any Error>

    /// Creates `containers` under a new root, starts the daemon and returns once its socket is bound.
    init(containers: [String] = ["com.example.grocery"]) async throws {
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
        let configuration = try DaemonConfiguration.select(configPath: nil, root: root, socketPath: socket,
                                                           uid: geteuid(), environment: [:])
        var settings = DaemonSettings(containers: configuration.resolveContainers().containers, endpoint: .path(socket),
                                      limits: configuration.limits)
        settings.trapsSignals = false
        daemon = try Daemon(settings: settings, logger: Logger(label: "ubiquityd-in-process") { _ in SwiftLogNoOpLogHandler() })
        running = Task { [daemon] in try await daemon.run() }
        await daemon.server.waitUntilBound()
    }

    /// `Documents/` of a container under ``root``.
    func documents(_ container: String = "com.example.grocery") -> String { root + "/" + container + "/Documents" }

    /// Makes a file appear at once, as ``TestDaemon/place(_:in:contents:)`` does.
    @discardableResult
    func place(_ name: String, in container: String = "com.example.grocery", contents: String) throws -> String {
        try placeAtomically(documents(container) + "/" + name, contents: contents, staging: directory)
    }

    /// Graceful shutdown, awaited; then the temporary directory is removed.
    func stop() async throws {
        await daemon.shutDownGracefully()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await running.value
    }
}

/// Runs `body` with an in-process daemon and always stops it and removes its files afterwards.
func withInProcessDaemon<T>(
    containers: [String] = ["com.example.grocery"], _ body: (InProcessDaemon) async throws -> T
) async throws -> T {
    let daemon = try await InProcessDaemon(containers: containers)
    do {
        let result = try await body(daemon)
        try await daemon.stop()
        return result
    } catch {
        try? await daemon.stop()
        throw error
    }
}
