import Foundation
import Glibc
import Testing
import UbiquityTesting

/// `demo-sync` as a person runs it: the commands it prints work as printed, and SIGTERM or SIGINT
/// stops every process it started and removes its directories, even when its output is a pipe
/// nobody reads any more. Needs root (unshare).
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
        #expect(Self.commandLines(naming: started).isEmpty)
        for path in started { #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left") }
    }

    /// `make demo-sync 2>&1 | tee log`, then Ctrl-C: tee dies of the same SIGINT, so demo-sync's
    /// output is a pipe nobody reads when it says "Stopping…". Printing must not end the shutdown:
    /// both daemons and both Syncthing instances stop and the work directory goes all the same.
    @Test func sigintWithItsOutputPipeClosedStillStopsEverythingAndRemovesTheWorkDirectory() throws {
        let demo = Process()
        let pipe = Pipe()
        demo.executableURL = BuiltExecutable("demo-sync").url
        demo.standardOutput = pipe
        demo.standardError = pipe
        demo.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        demo.terminationHandler = { _ in exited.signal() }
        try demo.run()
        defer { if demo.isRunning { kill(demo.processIdentifier, SIGKILL) } }
        let printed = try Self.lines(of: pipe.fileHandleForReading.fileDescriptor, until: { $0.hasPrefix("Ready.") }, within: 90)
        let ready = try #require(printed.last)
        let directory = try #require(ready.split(separator: " ").last.map { String($0.dropLast()) })
        try #require(directory.hasPrefix("/tmp/"), "\(ready)")
        // Every process of the rig names the work directory or a daemon's on its command line:
        // the two ubiquityd, the network namespace's supervisor and both Syncthing instances (each
        // a monitor and its child).
        let daemonDirectories = printed.filter { $0.hasPrefix("  socket ") }
            .compactMap { $0.split(separator: " ").last.map { (String($0) as NSString).deletingLastPathComponent } }
        #expect(daemonDirectories.count == 2, "\(printed)")
        let started = Self.processes(naming: [directory] + daemonDirectories)
        let homes = Set(started.compactMap { $0.line.firstMatch(of: /syncthing serve --home=(\S+)/).map { String($0.1) } })
        #expect(homes == [directory + "/a/syncthing", directory + "/b/syncthing"], "\(started)")
        #expect(started.filter { $0.line.contains("ubiquityd") }.count == 2, "\(started)")

        try pipe.fileHandleForReading.close()
        kill(demo.processIdentifier, SIGINT)
        try #require(exited.wait(timeout: .now() + 60) == .success, "demo-sync did not exit within 60 s of SIGINT")
        #expect(demo.terminationReason == .exit && demo.terminationStatus == 0,
                "demo-sync ended by \(demo.terminationReason == .uncaughtSignal ? "signal" : "exit") \(demo.terminationStatus)")
        let deadline = Date().addingTimeInterval(30)
        var left = started.filter { Self.isRunning($0.pid) }
        while !left.isEmpty && Date() < deadline {
            // sleep-ok: these are demo-sync's processes, not ours: no exit of theirs reaches this process
            usleep(20_000)
            left = left.filter { Self.isRunning($0.pid) }
        }
        #expect(left.isEmpty, "still running: \(left)")
        for path in [directory] + daemonDirectories {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left")
        }
        // Not to leave a failed run's rig behind on the machine.
        for process in left { kill(process.pid, SIGKILL) }
        for path in [directory] + daemonDirectories { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Lines read from `fd` until one satisfies `last` (included), failing after `seconds`.
    static func lines(of fd: Int32, until last: (String) -> Bool, within seconds: Double) throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var lines: [String] = [], partial: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while lines.last.map(last) != true {
            let remaining = deadline.timeIntervalSinceNow
            try #require(remaining > 0, "no such line within \(seconds) s; so far: \(lines)")
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            let count = read(fd, &buffer, buffer.count)
            try #require(count > 0, "the output ended; so far: \(lines)")
            partial += buffer[..<count]
            while let newline = partial.firstIndex(of: 0x0A), lines.last.map(last) != true {
                lines.append(String(decoding: partial[..<newline], as: UTF8.self))
                partial.removeSubrange(...newline)
            }
        }
        return lines
    }

    /// Whether `pid` is a live process (not gone, not a zombie).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// The PIDs and command lines (from /proc) of running processes that contain one of `words`.
    static func processes(naming words: [String]) -> [(pid: Int32, line: String)] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return pids.compactMap { pid in
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return words.contains { line.contains($0) } ? (pid, line) : nil
        }
    }

    /// The command lines (from /proc) of running processes that contain one of `words`.
    static func commandLines(naming words: [String]) -> [String] {
        processes(naming: words).map(\.line)
    }
}
