public import Foundation
import Glibc

/// A product SwiftPM built beside the running test bundle (it puts all products in one folder),
/// run as a child process the way a user would: `ubiq`, `grocery`, `ubiquityd`.
///
/// ```swift
/// let ubiq = BuiltExecutable("ubiq")
/// let r = try ubiq.run(["query", "--help"])
/// #expect(r.status == 0)
/// ```
public struct BuiltExecutable: Sendable {
    /// The executable's path: the test bundle's folder plus `name`.
    public let url: URL

    public init(_ name: String) {
        url = Self.folder.appendingPathComponent(name)
    }

    /// Any program by its absolute path (a reference implementation such as python3).
    public init(path: String) {
        url = URL(fileURLWithPath: path)
    }

    /// The folder holding the running test binary and every other built product.
    public static let folder: URL = {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: selfPath).deletingLastPathComponent()
    }()

    /// The test's own environment with COLUMNS=100 (stable `--help` wrapping) and TZ=UTC.
    public static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "100"
        environment["TZ"] = "UTC"
        return environment
    }

    /// Runs the executable to its exit with ``environment`` (plus `overrides`, such as another
    /// COLUMNS); standard output and error are captured in temporary files, so no pipe can fill up
    /// and block it. `stdin` is fed from a file; without it standard input is /dev/null.
    /// With `deadline`, a child still running after that many seconds is killed (`SIGKILL`) and
    /// the result says so in `stderr`, so a hanging program fails its test instead of hanging it.
    public func run(_ arguments: [String], stdin: Data? = nil,
                    environment overrides: [String: String] = [:], deadline: Double? = nil) throws -> CLIResult {
        OwnThreads.checkMayBlock("running \(url.lastPathComponent) to its exit")
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(url.lastPathComponent)-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        let inURL = folder.appendingPathComponent("in")
        guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
              FileManager.default.createFile(atPath: errURL.path, contents: nil),
              stdin.map({ FileManager.default.createFile(atPath: inURL.path, contents: $0) }) ?? true else {
            throw CocoaError(.fileWriteUnknown)
        }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let input = try stdin.map { _ in try FileHandle(forReadingFrom: inURL) }

        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = Self.environment.merging(overrides) { $1 }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        var killed = ""
        if let deadline, exited.wait(timeout: .now() + deadline) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            killed = "\n[killed: still running after \(deadline) s]\n"
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        try input?.close()
        return CLIResult(status: process.terminationStatus,
                         stdout: try String(contentsOf: outURL, encoding: .utf8),
                         stderr: try String(contentsOf: errURL, encoding: .utf8) + killed)
    }
}
