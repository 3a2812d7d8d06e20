import Foundation
import Glibc
import Synchronization
import Testing
@testable import UbiquityServer
import UbiquitySystem
import UbiquityTesting

/// The saved index's files while a snapshot is written off the engine: every record appended
/// after the snapshot was taken ends up in its journal — once, in order — however the appends and
/// the writing thread interleave, and the old journal keeps taking them until the new one is in place.
@Suite(.ownThreads) struct IndexStoreTests {
    static func record(_ n: UInt32) -> [UInt8] { withUnsafeBytes(of: n.littleEndian) { Array($0) } + [0xAB] }

    static func open(_ dir: TemporaryDirectory) throws -> IndexStore {
        try IndexStore.open(stateDirectory: dir.path + "/state").mapError { TestFailure($0.message) }.get()
    }

    /// Opens the store again once the one before has let go of its lock. A store closes its lock
    /// when its last reference goes, and the task that ran its last job (`runBlocking`) can hold
    /// one a moment after the job's result came back (on a loaded machine it still held the lock
    /// at the next open: "another ubiquityd uses this state directory"). Waits for that, for at
    /// most a minute, by taking the lock on a thread of its own.
    static func reopen(_ dir: TemporaryDirectory) async throws -> IndexStore {
        let path = dir.path + "/state/" + IndexStore.lockName
        let freed = try await firstWithin(60) { () async -> Bool in
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                Thread {
                    let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
                    let taken = fd >= 0 && flock(fd, LOCK_EX) == 0
                    if fd >= 0 { close(fd) }
                    continuation.resume(returning: taken)
                }.start()
            }
        }
        try #require(freed == true, "the store before still holds \(path)")
        return try open(dir)
    }

    /// The engine keeps no copy of a written snapshot: it reads the unchanged pieces back from the
    /// file the last replace wrote, and from no other.
    @Test func theSnapshotLastWrittenIsReadBackUntilItIsDiscarded() async throws {
        let dir = try TemporaryDirectory()
        let store = try Self.open(dir)
        #expect(store.readsSnapshotBack)
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let ok = bytes.withUnsafeMutableBytes { store.readSnapshot(at: offset, into: $0) }
            return ok ? bytes : nil
        }
        #expect(read(0, 1) == nil, "nothing written yet")
        let first = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await store.runBlocking { try store.replace(snapshot: first, journalHeader: [9]) }
        #expect(read(0, first.count) == first)
        #expect(read(99_990, 10) == Array(first[99_990...]))
        #expect(read(99_995, 10) == nil, "past the end")
        #expect(read(-1, 1) == nil)
        #expect(read(.max, 1) == nil)

        try await store.runBlocking { try store.replace(snapshot: [4, 5, 6], journalHeader: [8]) }
        #expect(read(0, 3) == [4, 5, 6], "the new file, not the one before")
        store.discard()
        #expect(read(0, 3) == nil, "discarded: nothing to read back")
    }

    @Test func recordsAppendedWhileASnapshotIsWrittenGoToItsJournalOnceAndInOrder() async throws {
        let dir = try TemporaryDirectory()
        let store = try Self.open(dir)
        // No journal yet: appends during the first snapshot are kept for its journal only.
        #expect(store.beginSnapshot() == nil)
        #expect(store.appendToJournal(Self.record(0)))
        try await store.runBlocking { try store.replace(snapshot: [1, 2, 3], journalHeader: [9, 9]) }
        #expect(store.read().journal.flatMap { try? $0.get() } == [9, 9] + Self.record(0))
        #expect(store.appendToJournal(Self.record(1)))
        let before = [9, 9] + Self.record(0) + Self.record(1)
        #expect(store.beginSnapshot() == UInt64(before.count))

        // Appends from this thread while the writing thread replaces both files.
        let appended = Mutex<UInt32>(2)
        let writing = Task(executorPreference: ThreadPerJobExecutor.shared) { try await store.runBlocking { try store.replace(snapshot: [4, 5, 6], journalHeader: [8, 8]) } }
        var oldJournalSeen: [UInt8]?
        while true {
            let n = appended.withLock { n in
                defer { n += 1 }
                return n
            }
            #expect(store.appendToJournal(Self.record(n)))
            // While the old journal is in place it holds every record so far.
            if let journal = store.read().journal.flatMap({ try? $0.get() }), journal.starts(with: [9, 9]) {
                oldJournalSeen = journal
                #expect(journal == before + (2...n).flatMap(Self.record), "record \(n)")
            }
            if n >= 200 { break }
            await Task.yield()      // yield-ok: lets the replacing task run between appends; the loop ends after 200 of them
        }
        try await writing.value
        let last = appended.withLock { $0 }
        #expect(store.appendToJournal(Self.record(last)))
        let journal = try #require(store.read().journal.flatMap { try? $0.get() })
        #expect(journal == [8, 8] + (2...last).flatMap(Self.record))
        #expect(store.read().snapshot.flatMap { try? $0.get() } == [4, 5, 6])
        #expect(oldJournalSeen != nil || journal.count > 2, "neither journal was seen")
        // Nothing left behind under a temporary name.
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/state")
        #expect(entries.sorted() == [IndexStore.journalName, IndexStore.lockName, IndexStore.snapshotName].sorted(), "\(entries)")
    }

    /// A snapshot that cannot be written removes both files and lets go of the records kept for
    /// it: the next snapshot's journal starts with the records after that one was taken.
    @Test func aSnapshotThatCannotBeWrittenLeavesNoSavedIndex() async throws {
        let dir = try TemporaryDirectory()
        let store = try Self.open(dir)
        _ = store.beginSnapshot()
        try await store.runBlocking { try store.replace(snapshot: [1], journalHeader: [9]) }
        _ = store.beginSnapshot()
        #expect(store.appendToJournal(Self.record(1)))
        // A directory where the snapshot goes: the rename onto it fails (for root too).
        let snapshot = dir.path + "/state/" + IndexStore.snapshotName
        #expect(unlink(snapshot) == 0 && mkdir(snapshot, 0o700) == 0)
        await #expect(throws: SystemCallError.self) {
            try await store.runBlocking { try store.replace(snapshot: [2], journalHeader: [8]) }
        }
        #expect(store.read().journal == nil)
        #expect(!store.appendToJournal(Self.record(2)))
        #expect(rmdir(snapshot) == 0)
        _ = store.beginSnapshot()
        #expect(store.appendToJournal(Self.record(3)))
        try await store.runBlocking { try store.replace(snapshot: [3], journalHeader: [7]) }
        #expect(store.read().journal.flatMap { try? $0.get() } == [7] + Self.record(3))
        #expect(store.read().snapshot.flatMap { try? $0.get() } == [3])
    }

    /// After a restore the journal goes on: appended to after its whole records (a torn tail is
    /// cut off first, so the new records are not read as its continuation), or replaced by a new
    /// one; either way the next snapshot continues it from its end, and appends follow.
    @Test func aJournalGoesOnAfterARestoreCutOrReplaced() async throws {
        let dir = try TemporaryDirectory()
        let journalPath = dir.path + "/state/" + IndexStore.journalName
        do {
            let store = try Self.open(dir)
            _ = store.beginSnapshot()
            try await store.runBlocking { try store.replace(snapshot: [1], journalHeader: [9, 9]) }
            #expect(store.appendToJournal(Self.record(1)))
        }
        // What a kill in the middle of a write leaves: part of a record.
        let whole = [9, 9] + Self.record(1)
        let torn = Self.record(2).prefix(3)
        #expect(FileManager.default.createFile(atPath: journalPath, contents: Data(whole + torn)))
        do {
            let store = try await Self.reopen(dir)
            #expect(store.read().journal.flatMap { try? $0.get() } == whole + torn)
            try store.continueJournal(.append(journalOf: 1, length: UInt64(whole.count)), records: Self.record(3))
            #expect(store.beginSnapshot() == UInt64(whole.count + Self.record(3).count))
            #expect(store.appendToJournal(Self.record(4)))
            #expect(store.read().journal.flatMap { try? $0.get() } == whole + Self.record(3) + Self.record(4))
        }
        do {
            let store = try await Self.reopen(dir)
            try store.continueJournal(.fresh(snapshotID: 1, header: [7], carried: Self.record(3)), records: Self.record(5))
            #expect(store.appendToJournal(Self.record(6)))
            #expect(store.read().journal.flatMap { try? $0.get() } == [7] + Self.record(3) + Self.record(5) + Self.record(6))
            #expect(store.beginSnapshot() == UInt64(1 + 3 * Self.record(3).count))
            let entries = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/state")
            #expect(entries.sorted() == [IndexStore.journalName, IndexStore.lockName, IndexStore.snapshotName].sorted(), "\(entries)")
            // A journal that is not what was read (shorter than its whole records): refused, and
            // the saved index removed, as its clocks would go on without it.
            #expect(throws: SystemCallError.self) {
                try store.continueJournal(.append(journalOf: 1, length: 1_000), records: [])
            }
            #expect(store.read().journal == nil && store.read().snapshot == nil)
        }
    }
}
