public import Foundation
import Glibc

/// The real `ubiquityd` process on a temporary root and socket, for what needs a process: signals,
/// `sd_notify`, socket activation, other uids, `kill -9`, the binary's output and exit status.
/// Every other test meets the daemon in-process (``withDaemon``).
///
/// `init` returns once the daemon says it is ready: the test is its `NOTIFY_SOCKET` and waits for
/// the `READY=1` the daemon sends after binding its socket and crawling every container (with a
/// deadline; no connection is made to find out, so none is left for `status` to count). With a
/// launcher or a notify socket of the caller's, it connects instead, each time the log grows.
/// `stop` sends SIGTERM and waits for the exit. Use ``withTestDaemon(containers:arguments:environment:_:)``
/// so the process is stopped even when the test throws.
///
/// ```swift
/// try await withTestDaemon { daemon in
///     let client = try RawClient(socket: daemon.socket)
///     try client.send(#"{"id":1,"op":"hello","version":1}"#)
/// }
/// ```
public final class TestDaemon: @unchecked Sendable {
    // @unchecked: `process` is only started in `start` and then read; Foundation's Process is
    // thread-safe for terminate/wait, and every other stored property is immutable.
    /// A fresh temporary directory holding `root/`, the socket and the daemon's log.
    public let directory: String
    /// The container root: one sub-directory per container id.
    public let root: String
    public let socket: String
    public let logPath: String
    public let process: Process
    /// Where the daemon's `READY=1` arrives, when the test owns its notify socket.
    private let readiness: Int32?
    /// The process's exit, signalled by its termination handler: waited for, never polled.
    private let exited = ProcessExit()

    public var pid: Int32 { process.processIdentifier }

    /// The `ubiquityd` built beside the test bundle (SwiftPM puts all products in one folder).
    public static let executable = BuiltExecutable("ubiquityd").url

    /// Creates `containers` under a new root and starts the daemon on it.
    ///
    /// - Parameters:
    ///   - arguments: Replace the default `--root ROOT --socket SOCKET` when non-nil (use
    ///     ``TestDaemon/root`` and ``TestDaemon/socket`` placeholders `{root}` and `{socket}`).
    ///   - waitForSocket: False for socket activation tests where something else owns the socket.
    ///   - launcher: A program that starts the daemon itself (e.g. `systemd-socket-activate`);
    ///     `{ubiquityd}` in `arguments` is the daemon's path.
    ///   - prepare: Called with ``root`` before the daemon starts (files its first crawl finds,
    ///     so nothing races with their indexing).
    public init(containers: [String] = ["com.example.grocery"], arguments: [String]? = nil,
                environment: [String: String] = [:], launcher: String? = nil, waitForSocket: Bool = true,
                prepare: ((_ root: String) throws -> Void)? = nil) throws {
        var template = Array("/tmp/ubqd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        root = directory + "/root"
        socket = directory + "/s.sock"
        logPath = directory + "/daemon.log"
        for container in containers {
            try FileManager.default.createDirectory(atPath: root + "/" + container + "/Documents",
                                                    withIntermediateDirectories: true)
        }
        if containers.isEmpty { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
        try prepare?(root)
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else { throw TestDaemonError("cannot create \(logPath)") }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))

        // The daemon tells us it is ready, as it tells systemd: unless someone else listens.
        let readinessPath = directory + "/ready.sock"
        if launcher == nil && environment["NOTIFY_SOCKET"] == nil && waitForSocket {
            readiness = try TestDaemon.datagramSocket(at: readinessPath)
        } else {
            readiness = nil
        }
        process = Process()
        process.executableURL = launcher.map { URL(fileURLWithPath: $0) } ?? TestDaemon.executable
        process.arguments = (arguments ?? ["--root", "{root}", "--socket", "{socket}"]).map {
            $0.replacingOccurrences(of: "{root}", with: root).replacingOccurrences(of: "{socket}", with: socket)
                .replacingOccurrences(of: "{dir}", with: directory).replacingOccurrences(of: "{ubiquityd}", with: TestDaemon.executable.path)
        }
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = readiness == nil ? nil : readinessPath
        env["LISTEN_FDS"] = nil
        env["LISTEN_PID"] = nil
        env["JOURNAL_STREAM"] = nil
        // Each test daemon is its own device for the key-value store (its id lives here).
        env["STATE_DIRECTORY"] = directory + "/state"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        OwnThreads.checkMayBlock("starting ubiquityd and waiting until it is ready")
        try process.run()
        try? log.close()
        if waitForSocket {
            do {
                if let readiness {
                    defer { close(readiness) }
                    try waitUntilReady(readiness)
                } else {
                    try waitUntilListening()
                }
            } catch {
                // Nobody gets this daemon to stop it: it must not outlive the test.
                signal(SIGKILL)
                _ = exited.wait(within: 5)
                throw error
            }
        }
    }

    /// Waits for a datagram containing `READY=1` on `fd`, or fails with the log.
    private func waitUntilReady(_ fd: Int32, within seconds: Double = 60) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // A short slice, so that a daemon that exits early is noticed promptly.
            let ready = poll(&entry, 1, Int32(min(200, max(1, deadline.timeIntervalSinceNow * 1000))))
            if ready > 0 {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count > 0 && String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").contains("READY=1") { return }
                continue
            }
            guard process.isRunning else { throw TestDaemonError("ubiquityd exited with status \(process.terminationStatus):\n\(log)") }
        }
        throw TestDaemonError("ubiquityd did not say READY=1 within \(seconds) s:\n\(log)")
    }

    /// A bound Unix datagram socket: where sd_notify messages arrive.
    private static func datagramSocket(at path: String) throws -> Int32 {
        try UnixSocket.bound(to: path, type: SOCK_DGRAM, listening: false)
    }

    /// Waits until the socket accepts a connection, trying again each time the log grows (a
    /// launcher such as `systemd-socket-activate` says `Listening on`, the daemon `listening`), or
    /// fails with the log after `seconds`. For a daemon whose `READY=1` goes elsewhere (a launcher,
    /// the caller's notify socket); `systemd-socket-activate` starts the daemon only at this connection.
    public func waitUntilListening(within seconds: Double = 30) throws {
        OwnThreads.checkMayBlock("TestDaemon.waitUntilListening")
        try waitForLogLines(within: seconds, "listening socket at \(socket)") { _ in
            guard let fd = try? RawClient.connect(socket) else { return false }
            close(fd)
            return true
        }
    }

    /// Waits until a line of the log holds every one of `texts`, or fails with the log after `seconds`.
    public func waitForLog(_ texts: String..., within seconds: Double = 30) throws {
        OwnThreads.checkMayBlock("TestDaemon.waitForLog")
        try waitForLogLines(within: seconds, "log line with \(texts)") { lines in
            lines.contains { line in texts.allSatisfy(line.contains) }
        }
    }

    /// SIGHUP, then waits until the daemon has applied it: its log says `reloaded` (or that the
    /// reload failed) once more than before. What the reload changed is then in place.
    public func reload(within seconds: Double = 30) throws {
        OwnThreads.checkMayBlock("TestDaemon.reload")
        let ended = { (line: Substring) in line.contains("reloaded containers=") || line.contains("reload failed") }
        let before = log.split(separator: "\n").filter(ended).count
        signal(SIGHUP)
        try waitForLogLines(within: seconds, "end of a reload in the log") { $0.filter(ended).count > before }
    }

    /// Reads the log again each time it grows (inotify) until `satisfied` holds for its lines, or
    /// fails with the log after `seconds` or when the daemon exits.
    private func waitForLogLines(within seconds: Double, _ what: String, _ satisfied: ([Substring]) -> Bool) throws {
        let growth = try FileEvents(watching: logPath, mask: UInt32(IN_MODIFY))
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if satisfied(log.split(separator: "\n")) { return }
            guard process.isRunning else { throw TestDaemonError("ubiquityd exited with status \(process.terminationStatus):\n\(log)") }
            guard Date() < deadline else { break }
            // A slice at most, so that a daemon that exits without writing is noticed promptly.
            growth.wait(within: min(0.2, deadline.timeIntervalSinceNow))
        }
        throw TestDaemonError("ubiquityd: no \(what) within \(seconds) s:\n\(log)")
    }

    /// Removes a tree the daemon watches (see ``removeWatchedTree(_:within:)``).
    public func removeWatchedTree(_ path: String, within seconds: Double = 10) throws {
        try UbiquityTesting.removeWatchedTree(path, within: seconds)
    }

    /// What the daemon wrote to stdout and stderr so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// `Documents/` of a container under ``root``.
    public func documents(_ container: String = "com.example.grocery") -> String { root + "/" + container + "/Documents" }

    /// Makes a file appear at once (see ``placeAtomically(_:contents:staging:)``).
    @discardableResult
    public func place(_ name: String, in container: String = "com.example.grocery", contents: String) throws -> String {
        try placeAtomically(documents(container) + "/" + name, contents: contents, staging: directory)
    }

    /// Waits for the process to end (within `seconds`) and returns its exit status, or nil if it
    /// is still running then.
    public func waitForExit(within seconds: Double = 20) -> Int32? {
        OwnThreads.checkMayBlock("TestDaemon.waitForExit")
        guard exited.wait(within: seconds) else { return nil }
        process.waitUntilExit()     // the status is set by now; this returns at once
        return process.terminationStatus
    }

    /// Waits for the process to end without blocking a thread.
    public func exit() async { await exited.wait() }

    /// SIGTERM, then waits without blocking a thread; SIGKILL if it does not stop within 20 s
    /// (and says so by returning nil).
    @discardableResult
    public func terminate() async -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        signal(SIGTERM)
        let killer = Task(executorPreference: ThreadPerJobExecutor.shared) {
            try await Task.sleep(for: .seconds(20))     // sleep-ok: the deadline for SIGKILL, not a wait for the exit
            self.signal(SIGKILL)
        }
        await exit()
        killer.cancel()
        process.waitUntilExit()
        return (try? await killer.value) == nil ? process.terminationStatus : nil
    }

    /// SIGTERM, then waits; SIGKILL if it does not stop within 20 s (and says so by returning nil).
    @discardableResult
    public func stop() -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        signal(SIGTERM)
        if let status = waitForExit() { return status }
        signal(SIGKILL)
        _ = waitForExit(within: 5)
        return nil
    }

    /// Removes the temporary directory (after `stop`).
    public func cleanUp() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a started daemon and always stops it and removes its files afterwards.
public func withTestDaemon<T>(
    containers: [String] = ["com.example.grocery"], arguments: [String]? = nil, environment: [String: String] = [:],
    prepare: ((_ root: String) throws -> Void)? = nil, _ body: (TestDaemon) async throws -> T
) async throws -> T {
    let daemon = try TestDaemon(containers: containers, arguments: arguments, environment: environment, prepare: prepare)
    do {
        let result = try await body(daemon)
        await daemon.terminate()
        daemon.cleanUp()
        return result
    } catch {
        await daemon.terminate()
        daemon.cleanUp()
        throw error
    }
}

/// Makes a file appear at once: written in `staging` (same file system), then renamed to `target`,
/// so a watcher sees one complete file (an atomic save) rather than a create followed by a write.
@discardableResult
public func placeAtomically(_ target: String, contents: String, staging: String) throws -> String {
    let staged = staging + "/staging-" + UUID().uuidString
    try Data(contents.utf8).write(to: URL(fileURLWithPath: staged))
    guard rename(staged, target) == 0 else { throw TestDaemonError("rename to \(target): \(String(cString: strerror(errno)))") }
    return target
}
