import Glibc
import Testing
import UbiquitySystem
import UbiquityTesting
@testable import UbiquityWatch

@Suite("TagReader")
struct TagReaderTests {
    @Test func readsWritesAndRemovesTags() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let file = base + "/a.txt"
        try FS.write(file, "x")
        #expect(TagReader.tags(atPath: file) == [])
        try TagReader.setTags(["Red", " urgent ", "", "two words"], atPath: file)
        #expect(TagReader.tags(atPath: file) == ["Red", "urgent", "two words"])
        try TagReader.setTags([], atPath: file)
        #expect(TagReader.tags(atPath: file) == [])
        try TagReader.setTags([], atPath: file)            // removing twice is fine
        #expect(TagReader.tags(atPath: base + "/missing") == [])
    }

    @Test func readsLongTagListsAndParsesRawValues() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let file = base + "/many.txt"
        try FS.write(file, "x")
        let tags = (0..<100).map { "tag-number-\($0)" }      // > 256 bytes: the read buffer grows
        try TagReader.setTags(tags, atPath: file)
        #expect(TagReader.tags(atPath: file) == tags)
        let directory = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(directory) }
        #expect(TagReader.tags(in: directory, named: "many.txt") == tags)
        #expect(TagReader.parse(ArraySlice(Array("a,,b ,\0".utf8))) == ["a", "b"])
    }

    @Test func neverFollowsASymlink() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        try FS.write(base + "/target.txt", "x")
        try TagReader.setTags(["target"], atPath: base + "/target.txt")
        try FS.symlink(base + "/target.txt", base + "/link")
        #expect(TagReader.tags(atPath: base + "/link") == [])
        // The watcher's form: relative to a directory descriptor, the same answers.
        let directory = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(directory) }
        #expect(TagReader.tags(in: directory, named: "target.txt") == ["target"])
        #expect(TagReader.tags(in: directory, named: "link") == [])
        #expect(TagReader.tags(in: directory, named: "missing") == [])
        #expect {
            try TagReader.setTags(["x"], atPath: base + "/link")
        } throws: { error in
            (error as? WatchError)?.call == "lsetxattr"
        }
    }
}

@Suite("WatchError")
struct WatchErrorTests {
    @Test func enospcFromInotifyAddWatchIsBudgetExhausted() {
        let error = WatchError(SystemCallError("inotify_add_watch", errno: ENOSPC, path: "/c/Documents"))
        #expect(error.code == .watchBudgetExhausted)
        #expect(error.code.rawValue == "watch.budgetExhausted")
        #expect(error.description == "inotify_add_watch failed for /c/Documents: No space left on device (ENOSPC)")
        #expect(WatchError(SystemCallError("write", errno: ENOSPC)).code == .systemCall)
    }

    @Test func realInotifyAddWatchFailureIsTyped() throws {
        let fd = try Inotify.open()
        let inotify = Inotify(adopting: fd)
        defer { inotify.close() }
        let file = try FS.temporaryDirectory()
        defer { try? FS.removeTree(file) }
        try FS.write(file + "/plain", "x")
        let plain = open(file + "/plain", O_RDONLY)
        defer { close(plain) }
        // IN_ONLYDIR on a regular file: ENOTDIR, reported with the call and the path.
        #expect {
            _ = try inotify.addWatch(directory: plain, path: file + "/plain")
        } throws: { error in
            (error as? WatchError)?.call == "inotify_add_watch" && (error as? WatchError)?.errno == ENOTDIR
        }
    }
}

@Suite("ResyncSchedule")
struct ResyncScheduleTests {
    @Test func firstOverflowIsDueAtOnceLaterOnesAfterTheBackoff() {
        var schedule = ResyncSchedule(backoffNanoseconds: 100)
        #expect(!schedule.isPending && !schedule.isDue(at: 0))
        schedule.overflowed(at: 1_000)
        #expect(schedule.isDue(at: 1_000))
        schedule.resynced(at: 1_000)
        #expect(!schedule.isPending)

        // A burst within the backoff: one rescan, owed at last + backoff.
        schedule.overflowed(at: 1_010)
        schedule.overflowed(at: 1_050)
        #expect(schedule.isPending)
        #expect(!schedule.isDue(at: 1_099))
        #expect(schedule.isDue(at: 1_100))
        schedule.resynced(at: 1_100)
        #expect(schedule.overflows == 3)
        #expect(schedule.resyncs == 2)

        // Long after the backoff: at once again.
        schedule.overflowed(at: 5_000)
        #expect(schedule.dueAt == 5_000)
    }
}
