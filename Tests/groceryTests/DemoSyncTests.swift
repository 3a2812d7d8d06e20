import Foundation
import Glibc
import Testing
import UbiquityTesting

/// `demo-sync` as a person runs it: the commands it prints work as printed, and SIGTERM stops
/// every process it started and removes its directories. Needs root (unshare).
@Suite(.ownThreads) struct DemoSyncTests {
    @Test func thePrintedCommandsReachTheOtherDeviceAndSIGTERMLeavesNothingBehind() throws {
        let demo = Process()
        let pipe = Pipe()
        demo.executableURL = BuiltExecutable("demo-sync").url
        demo.standardOutput = pipe
        demo.standardError = FileHandle.nullDevice
        demo.standardInput = FileHandle.nullDevice
        try demo.run()
        defer { if demo.isRunning { kill(demo.processIdentifier, SIGKILL) } }
        let output = LineReader(pipe.fileHandleForReading)
        var printed: [String] = []
        while printed.last?.hasPrefix("Ready.") != true {
            printed.append(try #require(output.next(within: 90), "no Ready line; so far: \(printed)"))
        }
        func value(_ key: String, of device: String) throws -> String {
            let section = try #require(printed.firstIndex(of: "Device \(device)"))
            let line = try #require(printed[section...].first { $0.hasPrefix("  \(key) ") }, "\(printed)")
            return String(line.dropFirst(key.count + 2).drop { $0 == " " })
        }
        let directory = try #require(printed.last?.split(separator: " ").last.map { String($0.dropLast()) })
        let sockets = try ["A", "B"].map { try value("socket", of: $0) }
        let add = try #require(printed.first { $0.hasPrefix("  A: ") && $0.contains(" add ") }).dropFirst(5)

        let watcher = try Watcher(["--socket", sockets[1]])
        #expect(watcher.next(kind: "gathered")?["count"] as? Int == 0)
        let added = try BuiltExecutable(path: "/bin/sh").run(["-c", String(add)])
        #expect(added.status == 0, "\(add): \(added.stderr)")
        let arrived = watcher.next(kind: "added", within: 60)
        #expect(arrived?["name"] as? String == "milk", "B did not see A's add")
        #expect(watcher.interrupt() == 0)

        kill(demo.processIdentifier, SIGTERM)
        #expect(output.next(within: 30) == "Stopping…")
        #expect(output.next(within: 30) == "Stopped.")
        demo.waitUntilExit()
        #expect(demo.terminationReason == .exit && demo.terminationStatus == 0)
        // Every process of the rig names one of these on its command line.
        let started = [directory] + sockets.map { ($0 as NSString).deletingLastPathComponent }
        #expect(Self.processes(naming: started).isEmpty)
        for path in started { #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left") }
    }

    /// The command lines (from /proc) of running processes that contain one of `words`.
    static func processes(naming words: [String]) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { Int($0) != nil } ?? []
        return pids.compactMap { pid in
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return words.contains { line.contains($0) } ? line : nil
        }
    }
}
