import Foundation

/// What a user sees after running the built `ubiq` binary.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum CLI {
    /// The `ubiq` built beside this test bundle (SwiftPM puts all products in one folder).
    static let executable: URL = {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: selfPath).deletingLastPathComponent().appendingPathComponent("ubiq")
    }()

    /// Runs `ubiq` with output captured in temporary files, so no pipe can fill up and block it.
    static func run(_ arguments: [String]) throws -> CLIResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ubiq-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
              FileManager.default.createFile(atPath: errURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "100"      // stable --help wrapping
        environment["TZ"] = "UTC"
        process.environment = environment
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
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
