import Glibc
import Testing
import UbiquityTesting
@testable import UbiquityIndex
@testable import UbiquityWatch

/// Every status and tag the watcher reads is relative to a directory descriptor reached from the
/// held container root without following a symlink: a directory swapped for a symlink leaks
/// nothing, and changes deeper than `PATH_MAX` are seen like any other. Real inotify throughout.
@Suite("Descriptor-relative reads", .ownThreads)
struct DescriptorRelativeTests {
    @Test func aFileCreatedInADirectoryRenamedInTheSameReadIsIndexedAtItsNewPlace() async throws {
        try await WatchHarness.with(populate: { try FS.mkdir($0 + "/a") }) { h in
            await h.watcher.holdReader()
            try FS.write(h.path("a/x"), "made before the rename")
            try FS.rename(h.path("a"), h.path("b"))
            h.watcher.releaseReader()
            try await h.converge()
            #expect(h.recorder.withIndex { $0.lookup(container: 0, ["b", "x"]) } != nil)
        }
    }

    @Test func aDirectorySwappedForASymlinkNeverLeaksTheTargetsStatus() async throws {
        try await WatchHarness.with(populate: { try FS.mkdir($0 + "/a") }) { h in
            // The target: a file of a size nothing in the container has, in a directory outside.
            let secret = String(repeating: "s", count: 12_345)
            try FS.write(h.outside + "/x", secret)
            await h.watcher.holdReader()
            try FS.write(h.path("a/x"), "mine")                 // queues a stat of a/x ...
            try FS.rename(h.path("a"), h.path("b"))              // ... then a is swapped for a link
            try FS.symlink(h.outside, h.path("a"))
            try TagReader.setTags(["mine"], atPath: h.path("b/x"))
            h.watcher.releaseReader()
            try await h.converge()
            let leaked = h.recorder.recorded.changes.filter { change in
                switch change {
                case .stat(_, _, let stat): stat.size == 12_345
                case .move(_, _, _, let stat): stat?.size == 12_345
                case .listing(_, _, let listing): listing.entries.contains { $0.stat.size == 12_345 }
                case .listingPart(_, let part): part.entries.contains { $0.stat.size == 12_345 }
                case .remove, .tags: false      // tags carry no status
                }
            }
            #expect(leaked.isEmpty, "the status of a file outside the container reached the index: \(leaked)")
            let link = h.recorder.withIndex { index in index.lookup(container: 0, ["a"]).map { index.stat($0).kind } }
            #expect(link == .symlink)
        }
    }

    /// No event tells when a directory above the root is renamed: the periodic check that the
    /// path still leads to the directory held catches it, and a symlink found there is refused.
    @Test func aRootWhosePathNowLeadsToASymlinkIsUnavailableAndNeverFollowed() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/mine.txt", "mine") }) { h in
            let away = h.base + "-away"
            defer { try? FS.removeTree(away) }
            try FS.write(h.outside + "/x", String(repeating: "s", count: 12_345))
            try FS.rename(h.base, away)
            try FS.mkdir(h.base)
            try FS.symlink(away + "/outside", h.root)
            try await h.recorder.wait(for: "the container unavailable") {
                $0.notices.contains(.containerUnavailable(WatchHarness.containerID))
            }
            let reason = h.watcher.status.unavailableReasons[WatchHarness.containerID] ?? ""
            #expect(reason.contains("symbolic link"), "\(h.watcher.status)")
            #expect(h.recorder.withIndex { $0.itemCount } == 0)
            let leaked = h.recorder.recorded.changes.contains { change in
                if case .listing(_, _, let listing) = change { return listing.entries.contains { $0.name == "x" } }
                if case .stat(_, let path, _) = change { return path == ["x"] }
                return false
            }
            #expect(!leaked, "the symlink's target was crawled")
        }
    }

    @Test func changesDeeperThanPathMaxAreSeen() async throws {
        // 40 levels of 120-byte names: 4,840 bytes below the root, past PATH_MAX (4,096).
        let levels = (0..<40).map { String(repeating: Character(UnicodeScalar(UInt8(97 + $0 % 26))), count: 120) }
        try await WatchHarness.with(populate: { root in try Deep.makeDirectories(root, levels) }) { h in
            #expect((h.root + "/" + levels.joined(separator: "/")).utf8.count > Int(PATH_MAX))
            let deepest = levels.joined(separator: "/")
            try Deep.write(h.root, levels, "note.txt", "first")
            try await h.recorder.wait(for: "the deep file's stat") { $0.hasStat(deepest + "/note.txt") { $0.size == 5 } }
            try Deep.write(h.root, levels, "note.txt", "second version")
            try await h.recorder.wait(for: "the deep file's new size") { $0.hasStat(deepest + "/note.txt") { $0.size == 14 } }
            try Deep.rename(h.root, levels, "note.txt", "renamed.txt")
            try await h.recorder.wait(for: "the deep rename") { $0.hasMove(deepest + "/note.txt", deepest + "/renamed.txt") }
            try await h.converge()
            let found = h.recorder.withIndex { $0.lookup(container: 0, levels + ["renamed.txt"]) }
            #expect(found != nil)
        }
    }
}

/// Files below `PATH_MAX` reached one component at a time (no path the kernel would refuse).
private enum Deep {
    static func withDirectory<T>(_ root: String, _ levels: [String], _ body: (Int32) throws -> T) throws -> T {
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw TestDaemonError("open \(root): errno \(errno)") }
        for name in levels {
            let next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            guard next >= 0 else { throw TestDaemonError("openat \(name): errno \(errno)") }
            fd = next
        }
        defer { close(fd) }
        return try body(fd)
    }

    static func makeDirectories(_ root: String, _ levels: [String]) throws {
        for depth in levels.indices {
            try withDirectory(root, Array(levels[..<depth])) { fd in
                guard mkdirat(fd, levels[depth], 0o755) == 0 else { throw TestDaemonError("mkdirat: errno \(errno)") }
            }
        }
    }

    static func write(_ root: String, _ levels: [String], _ name: String, _ text: String) throws {
        try withDirectory(root, levels) { directory in
            let fd = openat(directory, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw TestDaemonError("openat \(name): errno \(errno)") }
            defer { close(fd) }
            let bytes = Array(text.utf8)
            guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw TestDaemonError("write: errno \(errno)") }
        }
    }

    static func rename(_ root: String, _ levels: [String], _ from: String, _ to: String) throws {
        try withDirectory(root, levels) { fd in
            guard renameat(fd, from, fd, to) == 0 else { throw TestDaemonError("renameat: errno \(errno)") }
        }
    }
}
