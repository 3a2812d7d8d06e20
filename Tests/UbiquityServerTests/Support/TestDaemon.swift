import Foundation
import Glibc
import Testing
import UbiquityKit

/// The real `ubiquityd` process on a temporary root and socket.
///
/// Started by ``withTestDaemon(containers:_:)``: it waits until the socket accepts a connection
/// (polled against a deadline, never a fixed sleep) and always ends the process with SIGTERM and
/// waits for it, also when the test throws.
final class TestDaemon {
    /// The folder holding the root, the socket and the daemon's log (short, for sun_path).
    let directory: String
    var root: String { directory + "/root" }
    var socketPath: String { directory + "/s.sock" }
    var logPath: String { directory + "/daemon.log" }
    private let process: Process
    var pid: Int32 { process.processIdentifier }

    /// The `ubiquityd` built beside this test bundle (SwiftPM puts all products in one folder).
    static let executable: URL = {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: selfPath).deletingLastPathComponent().appendingPathComponent("ubiquityd")
    }()

    init(containers: [String]) throws {
        var template = Array("/tmp/ubq.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        directory = String(cString: made)
        for container in containers {
            try FileManager.default.createDirectory(atPath: directory + "/root/" + container + "/Documents",
                                                    withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(atPath: directory + "/root", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/daemon.log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/daemon.log"))
        process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--root", directory + "/root", "--socket", directory + "/s.sock"]
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Polls `connect(2)` until the socket accepts, the process dies, or the deadline passes.
    func waitUntilReady(within seconds: Double = 30) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard process.isRunning else {
                throw DaemonError("ubiquityd exited with \(process.terminationStatus): \(log)")
            }
            if Self.accepts(socketPath) { return }
            usleep(10_000)
        }
        throw DaemonError("ubiquityd did not accept connections within \(seconds) s: \(log)")
    }

    static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then wait for the process; the temporary folder goes too.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    func documents(_ container: String) -> String { root + "/" + container + "/Documents" }

    /// Makes a file appear at once: written beside the root, then renamed into place, so the
    /// daemon sees one complete file rather than a create followed by a write.
    func place(_ name: String, in container: String, contents: String) throws -> String {
        let staging = directory + "/staging-" + name
        try Data(contents.utf8).write(to: URL(fileURLWithPath: staging))
        let target = documents(container) + "/" + name
        guard rename(staging, target) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return target
    }
}

struct DaemonError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` with a started daemon serving `containers`, and always stops it.
func withTestDaemon<T>(containers: [String] = ["com.example.grocery"],
                       _ body: (TestDaemon) async throws -> T) async throws -> T {
    let daemon = try TestDaemon(containers: containers)
    defer { daemon.stop() }
    try daemon.waitUntilReady()
    return try await body(daemon)
}

/// Collects a query's notifications so a test can wait for the next one with a deadline.
actor NotificationRecorder {
    private var received: [MetadataQuery.Notification] = []
    private var cursor = 0
    private var end: Result<Void, any Error>?
    private var waiter: CheckedContinuation<Void, Never>?

    /// Starts draining `stream` in the background.
    static func recording(_ stream: AsyncThrowingStream<MetadataQuery.Notification, any Error>) -> NotificationRecorder {
        let recorder = NotificationRecorder()
        Task {
            do {
                for try await notification in stream { await recorder.append(notification) }
                await recorder.finish(.success(()))
            } catch {
                await recorder.finish(.failure(error))
            }
        }
        return recorder
    }

    private func append(_ n: MetadataQuery.Notification) {
        received.append(n)
        wake()
    }

    private func finish(_ result: Result<Void, any Error>) {
        end = result
        wake()
    }

    private func wake() {
        waiter?.resume()
        waiter = nil
    }

    /// Notifications received but not yet taken by `next`.
    var unread: [MetadataQuery.Notification] { Array(received[cursor...]) }

    /// The next notification; nil when the stream ended normally. Throws the stream's error, or
    /// ``DaemonError`` when nothing comes within `seconds`.
    func next(within seconds: Double = 10) async throws -> MetadataQuery.Notification? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if cursor < received.count {
                cursor += 1
                return received[cursor - 1]
            }
            if let end {
                try end.get()
                return nil
            }
            guard ContinuousClock.now < deadline else { throw DaemonError("no notification within \(seconds) s") }
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline)
                await self?.wake()
            }
            await withCheckedContinuation { waiter = $0 }
            timer.cancel()
        }
    }

    /// The next update, skipping progress and other notices.
    func nextUpdate(within seconds: Double = 10) async throws -> (added: [MetadataItem], changed: [MetadataItem], removed: [MetadataItem]) {
        while let n = try await next(within: seconds) {
            if case .didUpdate(let a, let c, let r) = n { return (a, c, r) }
        }
        throw DaemonError("the stream ended before an update")
    }

    /// Waits for didFinishGathering and returns its results.
    func gathered(within seconds: Double = 10) async throws -> [MetadataItem] {
        while let n = try await next(within: seconds) {
            if case .didFinishGathering(let results) = n { return results }
        }
        throw DaemonError("the stream ended before gathering finished")
    }
}
