import Foundation
import Glibc

/// A real `ubiquityd` for CLI tests: temporary root and socket, ready when the socket accepts,
/// always stopped with SIGTERM. (The full helper lives in UbiquityServerTests/Support; test
/// targets cannot share code, so this is the minimum the CLI tests need.)
final class DaemonStarter {
    let directory: String
    let process = Process()
    var socket: String { directory + "/s.sock" }
    var documents: String { directory + "/root/com.example.grocery/Documents" }

    init() throws {
        var template = Array("/tmp/ubc.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        directory = String(cString: made)
        try FileManager.default.createDirectory(atPath: directory + "/root/com.example.grocery/Documents",
                                                withIntermediateDirectories: true)
        process.executableURL = CLI.executable.deletingLastPathComponent().appendingPathComponent("ubiquityd")
        process.arguments = ["--root", directory + "/root", "--socket", socket]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when `ubiq status` gets an answer: polled against a deadline, never a fixed sleep.
        let deadline = Date().addingTimeInterval(30)
        while try CLI.run(["status", "--socket", socket]).status != 0 {
            guard Date() < deadline, process.isRunning else { stop(); throw CocoaError(.fileReadUnknown) }
            usleep(20_000)
        }
    }

    /// Writes beside the root, then renames into Documents, so the file appears complete.
    func place(_ name: String, contents: String) throws {
        let staging = directory + "/staging"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: staging))
        guard rename(staging, documents + "/" + name) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
