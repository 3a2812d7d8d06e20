import UbiquitySystem
import Foundation
public import Glibc

/// Plain file operations through Glibc, so each test controls exactly which events happen.
public enum FS {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func check(_ result: Int32, _ what: @autoclosure () -> String) throws {
        if result != 0 { throw Failure(description: "\(what()): \(String(cString: strerror(errno)))") }
    }

    public static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/ubiquity-watch-XXXXXX".utf8CString)
        guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp failed")
        }
        return String(cString: result)
    }

    public static func mkdir(_ path: String, mode: mode_t = 0o755) throws {
        try check(Glibc.mkdir(path, mode), "mkdir \(path)")
    }

    /// `mkdir -p`, one level after the other as the tool does.
    public static func mkdirs(_ path: String) throws {
        var current = ""
        for component in PathBytes.components(of: path) {
            current += "/" + component
            if Glibc.mkdir(current, 0o755) != 0 && errno != EEXIST { try check(-1, "mkdir \(current)") }
        }
    }

    /// `directories` directories `d0`, `d1`, … in `root`, each holding `files` files `f0`, `f1`, …
    /// of one byte.
    public static func directoriesOfFiles(in root: String, directories: Int, files: Int) throws {
        for d in 0..<directories {
            try mkdir(root + "/d\(d)")
            for f in 0..<files { try write(root + "/d\(d)/f\(f)", "x") }
        }
    }

    /// Writes (or appends) bytes with open/write/close.
    public static func write(_ path: String, _ text: String, append: Bool = false) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0o644)
        guard fd >= 0 else { throw Failure(description: "open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written != bytes.count { throw Failure(description: "write \(path)") }
    }

    public static func rename(_ from: String, _ to: String) throws { try check(Glibc.rename(from, to), "rename \(from) \(to)") }
    public static func unlink(_ path: String) throws { try check(Glibc.unlink(path), "unlink \(path)") }
    public static func symlink(_ target: String, _ path: String) throws { try check(Glibc.symlink(target, path), "symlink \(path)") }
    public static func link(_ existing: String, _ path: String) throws { try check(Glibc.link(existing, path), "link \(path)") }
    public static func chmod(_ path: String, _ mode: mode_t) throws { try check(Glibc.chmod(path, mode), "chmod \(path)") }
    public static func removeTree(_ path: String) throws { try FileManager.default.removeItem(atPath: path) }

    /// The names in a directory (cookies included: this is not the crawler).
    public static func names(_ directory: String) throws -> [String] {
        guard let stream = opendir(directory) else { throw Failure(description: "opendir \(directory)") }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Waits until `directory` holds an entry whose name satisfies `matches` — one another task
    /// or process puts there, which nothing else announces — woken by inotify on the directory
    /// (an entry created or renamed into it), never by looking again after a pause.
    ///
    /// - Returns: The name found.
    /// - Throws: ``TimedOut`` when none appears within `seconds`; ``Failure`` when the directory
    ///   cannot be read.
    @discardableResult
    public static func waitForName(in directory: String, within seconds: Double = 10, where matches: (String) -> Bool) throws -> String {
        OwnThreads.checkMayBlock("FS.waitForName")
        let arrivals = try FileEvents(watching: directory, mask: UInt32(IN_CREATE | IN_MOVED_TO))
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            // Looked at once the watch is in place: an entry made before it is found here.
            if let name = try names(directory).first(where: matches) { return name }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw TimedOut(description: "no entry of the awaited name appeared in \(directory) within \(seconds) s") }
            arrivals.wait(within: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }

    /// Waits until the names in `directory` satisfy `holds` — entries another process adds or
    /// removes (a sync engine deleting what another device compacted) — woken by inotify on the
    /// directory, never by looking again after a pause.
    ///
    /// - Throws: ``TimedOut`` when they do not within `seconds`; ``Failure`` when the directory
    ///   cannot be read.
    public static func waitForNames(in directory: String, within seconds: Double = 10, until holds: ([String]) -> Bool) throws {
        OwnThreads.checkMayBlock("FS.waitForNames")
        let changes = try FileEvents(watching: directory, mask: UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM))
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            // Looked at once the watch is in place: a change made before it is seen here.
            let present = try names(directory)
            if holds(present) { return }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw TimedOut(description: "the entries of \(directory) did not come to the awaited state within \(seconds) s: \(present.sorted())") }
            changes.wait(within: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }

    /// Waits until the file `name` in `directory` reads as `holds` wants (nil: it is absent or unreadable) —
    /// a file another process replaces, as a sync engine renames a received copy into place —
    /// woken by inotify on its directory, never by looking again after a pause.
    ///
    /// - Returns: The contents that satisfied `holds`.
    /// - Throws: ``TimedOut`` when they do not within `seconds`, naming what was read last.
    @discardableResult
    public static func waitForContents(of name: String, in directory: String, within seconds: Double = 10,
                                       until holds: (String?) -> Bool) throws -> String? {
        OwnThreads.checkMayBlock("FS.waitForContents")
        let path = directory + "/" + name
        let changes = try FileEvents(watching: directory, mask: UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM))
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            // Read once the watch is in place: a change made before it is seen here.
            let contents = try? String(contentsOfFile: path, encoding: .utf8)
            if holds(contents) { return contents }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw TimedOut(description: "\(path) did not come to the awaited contents within \(seconds) s: \(contents ?? "(absent)")") }
            changes.wait(within: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }
}
