import Foundation
import Glibc
import Testing
import UbiquityKit
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// UbiquityKit's `Document` and `FileVersion` against the real daemon: two writers that read the
/// same version never lose a save, the lock shows as editingDisabled, conflicts as inConflict.
@Suite(.ownThreads) struct DocumentTests {
    /// Waits for the first state that satisfies `condition`, with a deadline.
    static func waitFor(_ document: Document, within seconds: Double = 10,
                        _ condition: @escaping @Sendable (DocumentState) -> Bool) async throws -> DocumentState {
        let states = document.states()
        let first = try await firstWithin(seconds) { () -> DocumentState? in
            for await state in states where condition(state) { return state }
            return nil
        }
        guard let first = first ?? nil else { throw TestDaemonError("no matching state within \(seconds) s; now \(document.documentState)") }
        return first
    }

    @Test func aStaleSaveBecomesAConflictVersionAndLatestWinsOverwrites() async throws {
        try await withDaemon { daemon in
            let path = try daemon.place("Item_1", contents: "Milk")
            let first = try await Document.open(path, connection: try await UbiquityConnection.connect(to: daemon.socket))
            let second = try await Document.open(path, connection: try await UbiquityConnection.connect(to: daemon.socket))
            #expect(first.documentState == .normal)
            #expect(try first.read() == Data("Milk".utf8))
            #expect(try second.read() == Data("Milk".utf8))

            guard case .saved(let etag) = try await first.save(Data("Oat milk".utf8)) else {
                Issue.record("the first save of the version both read must go through")
                return
            }
            #expect(first.etag == etag)
            let outcome = try await second.save(Data("Whole milk".utf8))
            guard case .savedAsConflictVersion(let copy) = outcome else {
                Issue.record("the second save read a version that is gone: it must not overwrite, got \(outcome)")
                return
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "Oat milk", "the first save stays the item")
            #expect(try String(contentsOfFile: copy, encoding: .utf8) == "Whole milk", "the second save is kept")
            _ = try await Self.waitFor(first) { $0.contains(.inConflict) }

            let conflicts = try await FileVersion.unresolvedConflictVersionsOfItem(at: path, connection: second.connection)
            #expect(conflicts.map(\.path) == [copy])
            #expect(try conflicts[0].contents() == Data("Whole milk".utf8))
            #expect(conflicts[0].localizedNameOfSavingComputer != nil)
            try await conflicts[0].replaceItem(connection: second.connection, removingOthers: true)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "Whole milk")
            _ = try await Self.waitFor(first) { !$0.contains(.inConflict) }

            // Latest wins: a save over a version it did not read, asked for.
            #expect(try first.read() == Data("Whole milk".utf8))
            try await second.save(Data("Cream".utf8), policy: .latestWins)
            guard case .saved = try await first.save(Data("Butter".utf8), policy: .latestWins) else {
                Issue.record("latest wins must overwrite")
                return
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "Butter")
            #expect(try await FileVersion.otherVersionsOfItem(at: path, connection: first.connection).isEmpty)
            await first.close()
            #expect(first.documentState.contains(.closed))
        }
    }

    /// Why `read` was refused (`documentFile`'s reason); nil when it read.
    static func refusal(_ read: () throws -> Data) -> String? {
        do {
            _ = try read()
            return nil
        } catch UbiquityKitError.documentFile(_, let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    /// A document is read whole into memory: a file past the limit — a sparse one of terabytes
    /// included — is refused saying its size, before anything is allocated for it.
    @Test func aFilePastTheReadLimitIsRefusedNotATrap() async throws {
        try await withDaemon { daemon in
            let path = try daemon.place("Item_7", contents: "Milk")
            let document = try await Document.open(path, connection: try await UbiquityConnection.connect(to: daemon.socket))
            #expect(try document.read(limit: 4) == Data("Milk".utf8))
            #expect(Self.refusal { try document.read(limit: 3) } == "it is 4 bytes, more than the 3 read(limit:) allows")
            let sparse = try daemon.place("Item_8", contents: "")
            #expect(truncate(sparse, 1 << 40) == 0)
            let big = try await Document.open(sparse, connection: document.connection)
            #expect(Self.refusal { try big.read() } == "it is \(1 << 40) bytes, more than the \(Document.defaultReadLimit) read(limit:) allows")
            await document.close()
            await big.close()
        }
    }

    @Test func anotherWritersLockDisablesEditingAndASaveWaitsForIt() async throws {
        try await withDaemon { daemon in
            let path = try daemon.place("Item_2", contents: "Eggs")
            let document = try await Document.open(path, connection: try await UbiquityConnection.connect(to: daemon.socket))
            _ = try document.read()
            let other = try RawClient(socket: daemon.socket)
            _ = try other.request(#"{"id":0,"op":"hello","version":1}"#)
            let locked = try other.request(JSONLine.encode(.object(["id": .integer(1), "op": .string("document.lock"), "path": .string(path)]))).response
            let lock = try #require(locked["result"]?["lock"]?.intValue)
            _ = try await Self.waitFor(document) { $0.contains(.editingDisabled) }

            let again = try RawClient(socket: daemon.socket)
            _ = try again.request(#"{"id":0,"op":"hello","version":1}"#)
            let refused = try again.request(JSONLine.encode(.object(["id": .integer(1), "op": .string("document.lock"), "path": .string(path)]))).response
            #expect(refused["error"]?["code"]?.stringValue == "document.locked")
            // Who holds it is not told: another user's uid and pid are none of the asker's business.
            #expect(refused["error"]?["holder"] == nil)
            let message = refused["error"]?["message"]?.stringValue ?? ""
            #expect(!message.contains(String(getpid())))

            let save = Task(executorPreference: ThreadPerJobExecutor.shared) { try await document.save(Data("Brown eggs".utf8)) }
            // The save cannot finish while the lock is held; giving it back lets it through.
            try await Task.sleep(for: .milliseconds(200))   // sleep-ok: not synchronisation: a window for a wrong save to show
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "Eggs")
            _ = try other.request(#"{"id":2,"op":"document.unlock","lock":\#(lock)}"#)
            guard case .saved = try await save.value else {
                Issue.record("nothing changed the file while the lock was held: the save must go through")
                return
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "Brown eggs")
            #expect(!document.documentState.contains(.editingDisabled))
        }
    }

    @Test func aClosedConnectionGivesItsLockBack() async throws {
        try await withDaemon { daemon in
            let path = try daemon.place("Item_3", contents: "Bread")
            let document = try await Document.open(path, connection: try await UbiquityConnection.connect(to: daemon.socket))
            do {
                let holder = try RawClient(socket: daemon.socket)
                _ = try holder.request(#"{"id":0,"op":"hello","version":1}"#)
                _ = try holder.request(JSONLine.encode(.object(["id": .integer(1), "op": .string("document.lock"), "path": .string(path)])))
                _ = try await Self.waitFor(document) { $0.contains(.editingDisabled) }
            }
            // The raw client is gone (its socket closed): the daemon released its lock.
            _ = try await Self.waitFor(document) { !$0.contains(.editingDisabled) }
            _ = try document.read()
            guard case .saved = try await document.save(Data("Rye bread".utf8), lockTimeout: .seconds(5)) else {
                Issue.record("the lock of a closed connection must not outlive it")
                return
            }
        }
    }

    /// The document's directory and name are split on the byte `/`: a directory whose name ends in
    /// U+0600 (a grapheme "prepend" character, which makes the `/` after it part of one Character)
    /// still holds the saves, and a stale save's conflict version lands beside the item.
    @Test func aSaveBesideTheItemEvenWhenAPrependCharacterHidesTheSlash() async throws {
        try await withDaemon { daemon in
            let directory = daemon.documents() + "/list.v\u{600}"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = try placeAtomically(directory + "/Item_1", contents: "Milk", staging: daemon.directory)
            let document = try await Document.open(path, connection: try await UbiquityConnection.connect(to: daemon.socket))
            #expect(try document.read() == Data("Milk".utf8))
            try placeAtomically(path, contents: "Oat milk", staging: daemon.directory)     // another writer saved meanwhile
            let outcome = try await document.save(Data("Whole milk".utf8))
            guard case .savedAsConflictVersion(let copy) = outcome else {
                Issue.record("a save over a version it did not read must become a conflict version, got \(outcome)")
                return
            }
            #expect(copy.hasPrefix(directory + "/Item_1.ubiquity-conflict-"), "\(copy)")
            #expect(try String(contentsOfFile: copy, encoding: .utf8) == "Whole milk")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "Oat milk")
            _ = try document.read()
            guard case .saved = try await document.save(Data("Cream".utf8)) else {
                Issue.record("a save of the version read must go through")
                return
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "Cream")
            #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()) == ["list.v\u{600}"], "no temporary file left beside the directory")
        }
    }
}
