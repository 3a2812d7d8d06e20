import Foundation
import Glibc

/// What a user sees after running the built `grocery` binary.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum GroceryCLI {
    /// The `grocery` built beside this test bundle (SwiftPM puts all products in one folder).
    static let executable: URL = {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: selfPath).deletingLastPathComponent().appendingPathComponent("grocery")
    }()

    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "100"      // stable --help wrapping
        environment["TZ"] = "UTC"
        return environment
    }

    /// Runs `grocery` with output captured in temporary files, so no pipe can fill up and block it.
    static func run(_ arguments: [String], stdin: Data? = nil) throws -> CLIResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("grocery-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        let inURL = folder.appendingPathComponent("in")
        guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
              FileManager.default.createFile(atPath: errURL.path, contents: nil),
              FileManager.default.createFile(atPath: inURL.path, contents: stdin ?? Data()) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let input = try FileHandle(forReadingFrom: inURL)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        try input.close()
        return CLIResult(status: process.terminationStatus,
                         stdout: try String(contentsOf: outURL, encoding: .utf8),
                         stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// Snapshot files live in Snapshots/ beside this source file.
    static func snapshot(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Snapshots").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8)
    }
}

/// `grocery watch --json` running as its own process; its lines are read with a deadline.
final class Watcher {
    let process = Process()
    let lines: LineReader

    init(_ arguments: [String], json: Bool = true) throws {
        let pipe = Pipe()
        process.executableURL = GroceryCLI.executable
        process.arguments = ["watch", "--batching", "0"] + (json ? ["--json"] : []) + arguments
        process.environment = GroceryCLI.environment
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        lines = LineReader(pipe.fileHandleForReading)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// The next line as a JSON object; fails the caller (nil) when none comes within `seconds`.
    func next(within seconds: Double = 15) -> [String: Any]? {
        guard let line = lines.next(within: seconds) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// Skips lines until one of `kind`, and returns it (nil after `seconds` without one).
    func next(kind: String, within seconds: Double = 15) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let object = next(within: deadline.timeIntervalSinceNow) else { return nil }
            if object["kind"] as? String == kind { return object }
        }
        return nil
    }

    /// SIGINT, then the exit status (nil if it did not exit within 10 s).
    func interrupt() -> Int32? {
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }  // polling the exit, not standing in for it
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// Lines of a child's standard output, read on a background thread; `next` waits with a deadline.
/// (The same reader as ubiqTests' — test targets cannot share code outside UbiquityTesting.)
final class LineReader: @unchecked Sendable {
    // @unchecked: `lines` and `partial` are only touched with `condition` held.
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty { condition.broadcast(); condition.unlock(); return }
                partial.append(data)
                while let newline = partial.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
                    partial = Data(partial[(newline + 1)...])
                }
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// The next line, or nil when none arrives within `seconds`.
    func next(within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            guard condition.wait(until: deadline) else { return nil }
        }
        return lines.removeFirst()
    }
}
