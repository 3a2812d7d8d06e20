import Foundation
import Glibc
import Synchronization
import Testing
import UbiquityKit
import UbiquityProtocol
import UbiquityTesting

/// `Document.updatePackage` against the real daemon: a package (a directory of files, here
/// `list.gro` with `index.txt` as its commit file) saved under the daemon's lock, its commit file
/// compared before the commit, its files written before and removed after it.
@Suite(.ownThreads) struct PackageSaveTests {
    static let commitFile = "index.txt"

    /// The lines of the commit file; a missing one has none.
    static func lines(_ data: Data?) -> [String] {
        data.map { String(decoding: $0, as: UTF8.self).split(separator: "\n").map(String.init) } ?? []
    }

    /// Appends `line` to the package's commit file in one coordinated save.
    static func append(_ line: String, to document: Document, lockTimeout: Duration = .seconds(30)) async throws {
        try await document.updatePackage(commitFile: commitFile, limit: 1 << 20, lockTimeout: lockTimeout) { update in
            update.commit = Data((lines(update.current) + [line]).joined(separator: "\n").utf8)
        }
    }

    static func open(_ path: String, _ daemon: InProcessDaemon) async throws -> Document {
        try await Document.open(path, connection: try await UbiquityConnection.connect(to: daemon.socket))
    }

    static func contents(_ path: String) throws -> [String] {
        lines(try Data(contentsOf: URL(fileURLWithPath: path + "/" + commitFile)))
    }

    @Test func aNewPackageIsBuiltWholeThenChangedFileByFile() async throws {
        try await withDaemon { daemon in
            let path = daemon.documents() + "/list.gro"
            let document = try await Self.open(path, daemon)
            let first = try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20, listing: ["images"]) { update in
                #expect(!update.exists && update.current == nil && update.listing == ["images": []])
                update.commit = Data("milk images/a.png".utf8)
                update.newFiles["images/a.png"] = Data("A".utf8)
                return "created"
            }
            #expect(first == "created")
            #expect(try FS.names(path).sorted() == ["images", Self.commitFile])
            #expect(try FS.names(path + "/images").sorted() == ["a.png"])
            #expect(try FS.names(daemon.documents()).sorted() == ["list.gro"], "nothing of the staging copy is left")
            let created = try #require(document.etag)

            // A crashed save's temporary file inside the package goes with the next save.
            try FS.write(path + "/.ubiquity-save-999999-7", "half")
            try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20, listing: ["images"]) { update in
                #expect(update.exists && update.current == Data("milk images/a.png".utf8))
                #expect(update.listing == ["images": ["a.png"]])
                update.commit = Data("milk images/b.png".utf8)
                update.newFiles["images/b.png"] = Data("B".utf8)
                update.removedFiles = ["images/a.png", "images/never-there.png"]
            }
            #expect(try FS.names(path).sorted() == ["images", Self.commitFile])
            #expect(try FS.names(path + "/images").sorted() == ["b.png"])
            #expect(try String(contentsOfFile: path + "/" + Self.commitFile, encoding: .utf8) == "milk images/b.png")
            #expect(document.etag != created, "the commit file is new: so is the package's version")

            // No commit: nothing is written at all.
            let before = try #require(document.etag)
            let unchanged = try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20) { update in
                update.newFiles["images/c.png"] = Data("C".utf8)     // ignored without a commit
                return 7
            }
            #expect(unchanged == 7)
            #expect(try FS.names(path + "/images").sorted() == ["b.png"])
            #expect(document.etag == before)
            #expect(document.documentState == .normal)
            await document.close()
        }
    }

    @Test func twoWritersOnTwoConnectionsRacingLoseNoChange() async throws {
        try await withDaemon { daemon in
            let path = daemon.documents() + "/list.gro"
            let writers = try await [Self.open(path, daemon), Self.open(path, daemon)]
            let rounds = 15
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask { for n in 0..<rounds { try await Self.append("w\(index)-\(n)", to: writer) } }
                }
                try await group.waitForAll()
            }
            let lines = try Self.contents(path)
            #expect(lines.count == 2 * rounds, "a change was lost: \(lines)")
            #expect(Set(lines) == Set((0..<2).flatMap { w in (0..<rounds).map { "w\(w)-\($0)" } }))
            for writer in writers { await writer.close() }
        }
    }

    /// The daemon's lock belongs to a connection and is given again to the connection holding it:
    /// two documents on ONE connection must still save one after the other.
    @Test func twoDocumentsOnOneConnectionTakeTurns() async throws {
        try await withDaemon { daemon in
            let path = daemon.documents() + "/list.gro"
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let writers = try await [Document.open(path, connection: connection), Document.open(path, connection: connection)]
            let rounds = 15
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask { for n in 0..<rounds { try await Self.append("w\(index)-\(n)", to: writer) } }
                }
                try await group.waitForAll()
            }
            #expect(try Self.contents(path).count == 2 * rounds)
            for writer in writers { await writer.close() }
        }
    }

    /// Fails when a package save does not wait for the daemon's lock.
    @Test func aSaveWaitsForAnotherConnectionsLock() async throws {
        try await withDaemon { daemon in
            let path = daemon.documents() + "/list.gro"
            let document = try await Self.open(path, daemon)
            try await Self.append("milk", to: document)
            let holder = try await UbiquityConnection.connect(to: daemon.socket)
            let lock = try await holder.send(DocumentLock(path: path)).lock

            let ran = Count()
            await #expect(throws: UbiquityKitError.documentBusy(path: path, seconds: 0)) {
                try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20, lockTimeout: .milliseconds(300)) { update in
                    ran.add()
                    update.commit = Data("bread".utf8)
                }
            }
            #expect(ran.value == 0, "the change ran while another connection held the lock")
            #expect(try Self.contents(path) == ["milk"])

            let released = Count()
            let save = Task(executorPreference: ThreadPerJobExecutor.shared) {
                try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20) { update in
                    #expect(released.value == 1, "the change ran while another connection held the lock")
                    update.commit = Data((Self.lines(update.current) + ["bread"]).joined(separator: "\n").utf8)
                }
            }
            try await Task.sleep(for: .milliseconds(200))   // sleep-ok: not synchronisation: a window for a wrong save to show
            #expect(try Self.contents(path) == ["milk"])
            released.add()
            _ = try await holder.send(DocumentUnlock(lock: lock))
            try await save.value
            #expect(try Self.contents(path) == ["milk", "bread"])
            await holder.close()
            await document.close()
        }
    }

    /// A program that ignores the lock (a sync engine bringing another device's save) replaces the
    /// commit file after the save read it: the save notices before its commit and applies the
    /// change again to what is there.
    @Test func aWriterThatIgnoresTheLockIsNoticedAndTheChangeAppliedAgain() async throws {
        try await withDaemon { daemon in
            let path = daemon.documents() + "/list.gro"
            let document = try await Self.open(path, daemon)
            try await Self.append("milk", to: document)
            let runs = Count()
            try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20, listing: ["images"]) { update in
                if runs.add() == 1 {
                    // The sync engine's way: a temporary file renamed over the commit file.
                    try FS.write(daemon.directory + "/synced", "milk\neggs")
                    try FS.rename(daemon.directory + "/synced", path + "/" + Self.commitFile)
                }
                update.commit = Data((Self.lines(update.current) + ["bread"]).joined(separator: "\n").utf8)
                update.newFiles["images/\(runs.value).png"] = Data("png".utf8)
            }
            #expect(runs.value == 2)
            #expect(try Self.contents(path) == ["milk", "eggs", "bread"])
            #expect(try FS.names(path + "/images").sorted() == ["2.png"], "the first round's new file is removed")

            // A creator that ignores the lock puts a package in place while this one builds its own.
            let fresh = daemon.documents() + "/other.gro"
            let creator = try await Self.open(fresh, daemon)
            let rounds = Count()
            try await creator.updatePackage(commitFile: Self.commitFile, limit: 1 << 20) { update in
                if rounds.add() == 1 {
                    #expect(!update.exists)
                    try FS.mkdir(fresh)
                    try FS.write(fresh + "/" + Self.commitFile, "eggs")
                }
                update.commit = Data((Self.lines(update.current) + ["milk"]).joined(separator: "\n").utf8)
            }
            #expect(rounds.value == 2)
            #expect(try Self.contents(fresh) == ["eggs", "milk"])
            #expect(try FS.names(daemon.documents()).sorted() == ["list.gro", "other.gro"], "the staging copy is removed")
            await document.close()
            await creator.close()
        }
    }

    @Test func pathsOutsideThePackageAndLinksAreRefusedAndNothingIsWritten() async throws {
        try await withDaemon { daemon in
            let path = daemon.documents() + "/list.gro"
            let document = try await Self.open(path, daemon)
            try await Self.append("milk", to: document)
            for bad in ["../escaped", "/etc/x", "images//a", "./a", ""] {
                await #expect(throws: UbiquityKitError.self, "\(bad)") {
                    try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20) { update in
                        update.commit = Data("bread".utf8)
                        update.newFiles[bad] = Data("x".utf8)
                    }
                }
            }
            await #expect(throws: UbiquityKitError.self) {
                try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20) { update in
                    update.commit = Data("bread".utf8)
                    update.removedFiles = [Self.commitFile]
                }
            }
            #expect(try FS.names(daemon.documents()).sorted() == ["list.gro"])
            #expect(try Self.contents(path) == ["milk"])

            // A link planted where a directory of the package was: refused, nothing written through it.
            let elsewhere = daemon.directory + "/elsewhere"
            try FS.mkdir(elsewhere)
            try FS.symlink(elsewhere, path + "/images")
            await #expect(throws: UbiquityKitError.self) {
                try await document.updatePackage(commitFile: Self.commitFile, limit: 1 << 20) { update in
                    update.commit = Data("bread".utf8)
                    update.newFiles["images/a.png"] = Data("x".utf8)
                }
            }
            #expect(try FS.names(elsewhere).sorted().isEmpty)
            #expect(try Self.contents(path) == ["milk"])
            #expect(document.documentState.contains(.savingError))

            // The commit file as a link: refused before anything is decided.
            try FS.unlink(path + "/" + Self.commitFile)
            try FS.symlink("/dev/zero", path + "/" + Self.commitFile)
            await #expect(throws: UbiquityKitError.self) { try await Self.append("bread", to: document) }
            await document.close()
        }
    }
}

/// A count shared with the closures a test hands over.
final class Count: Sendable {
    private let count = Atomic<Int>(0)
    /// Counts one more; the new count.
    @discardableResult
    func add() -> Int { count.add(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
}
