import Foundation
import Glibc
import Testing
@testable import UbiquityKit
import UbiquitySystem

/// A move across file systems, crashed at each step: what ``MoveJournal/finishPending()`` finds
/// on disk decides, so the item ends in exactly one place — and a move another process is still
/// making is left alone. Real files, real `flock`; the crash is a record left without its `end`,
/// unlocked, as a dead process leaves it.
@Suite struct ItemMoveTests {
    /// `source/` and `target/` directories and a journal, under a fresh directory.
    struct Scene {
        let base: String
        var source: String { base + "/source" }
        var target: String { base + "/target" }
        let journal: MoveJournal

        init() throws {
            base = NSTemporaryDirectory() + "item-move-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            for directory in [base + "/source", base + "/target"] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            journal = MoveJournal(directory: base + "/state/ubiquity/moves")
        }

        func write(_ path: String, _ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
        var records: [String] { (try? FileManager.default.contentsOfDirectory(atPath: journal.directory)) ?? [] }

        /// A record as a crashed move leaves it: the bytes ``MoveJournal/begin(_:)`` writes, under a
        /// name of the same form, no `end` — and no lock ever taken by this process. A record begun
        /// here and dropped was unlocked only once no process held its descriptor: a child another
        /// test was spawning in between holds it until it execs, and a loaded run once saw the
        /// recovery leave the record as a live move's.
        func crashedRecord(_ record: MoveJournal.Record) throws {
            try FileManager.default.createDirectory(atPath: journal.directory, withIntermediateDirectories: true)
            let name = "move-\(getpid())-crashed\(UInt32.random(in: 0...UInt32.max))"
            try Data(MoveJournal.bytes(record)).write(to: URL(fileURLWithPath: journal.directory + "/" + name))
        }

        func identity(_ path: String) throws -> MoveJournal.FileIdentity {
            var info = stat()
            try #require(lstat(path, &info) == 0)
            return MoveJournal.FileIdentity(info)
        }

        func cleanUp() { try? FileManager.default.removeItem(atPath: base) }
    }

    @Test("A crash while copying: the copy is removed, the source stays")
    func crashBeforeTheCommitUndoes() throws {
        let scene = try Scene()
        defer { scene.cleanUp() }
        try scene.write(scene.source + "/list.txt", "milk")
        let temporary = ".ubiquity-save-1-2"
        try scene.write(scene.target + "/" + temporary, "mi")
        try scene.crashedRecord(.init(source: scene.source + "/list.txt", destination: scene.target + "/list.txt", temporary: temporary, copy: nil))

        let said = scene.journal.finishPending()
        #expect(said.count == 1 && said[0].contains("undid"), "\(said)")
        #expect(!scene.exists(scene.target + "/" + temporary) && !scene.exists(scene.target + "/list.txt"))
        #expect(try String(contentsOfFile: scene.source + "/list.txt", encoding: .utf8) == "milk")
        #expect(scene.records.isEmpty)
    }

    @Test("A crash after the commit: the source is removed, the moved item stays")
    func crashAfterTheCommitFinishes() throws {
        let scene = try Scene()
        defer { scene.cleanUp() }
        try scene.write(scene.source + "/list.txt", "milk")
        try scene.write(scene.target + "/list.txt", "milk")
        let copy = try scene.identity(scene.target + "/list.txt")
        try scene.crashedRecord(.init(source: scene.source + "/list.txt", destination: scene.target + "/list.txt",
                                      temporary: ".ubiquity-save-1-3", copy: copy))

        let said = scene.journal.finishPending()
        #expect(said.count == 1 && said[0].contains("finished"), "\(said)")
        #expect(!scene.exists(scene.source + "/list.txt"))
        #expect(try String(contentsOfFile: scene.target + "/list.txt", encoding: .utf8) == "milk")
        #expect(scene.records.isEmpty)
    }

    @Test("Something else at the destination (not the recorded copy): the source stays")
    func aStrangerAtTheDestinationKeepsTheSource() throws {
        let scene = try Scene()
        defer { scene.cleanUp() }
        try scene.write(scene.source + "/list.txt", "milk")
        try scene.write(scene.target + "/other", "x")
        let elsewhere = try scene.identity(scene.target + "/other")
        try scene.write(scene.target + "/list.txt", "someone else's")
        try scene.crashedRecord(.init(source: scene.source + "/list.txt", destination: scene.target + "/list.txt",
                                      temporary: ".ubiquity-save-1-4", copy: elsewhere))

        _ = scene.journal.finishPending()
        #expect(try String(contentsOfFile: scene.source + "/list.txt", encoding: .utf8) == "milk")
        #expect(try String(contentsOfFile: scene.target + "/list.txt", encoding: .utf8) == "someone else's")
        #expect(scene.records.isEmpty)
    }

    @Test("A move still under way (its record locked) is left alone by another's recovery")
    func aHeldRecordIsLeftAlone() throws {
        let scene = try Scene()
        defer { scene.cleanUp() }
        try scene.write(scene.source + "/list.txt", "milk")
        let temporary = ".ubiquity-save-1-5"
        try scene.write(scene.target + "/" + temporary, "mi")
        let held = try scene.journal.begin(.init(source: scene.source + "/list.txt", destination: scene.target + "/list.txt",
                                                 temporary: temporary, copy: nil))

        #expect(scene.journal.finishPending().isEmpty)
        #expect(scene.exists(scene.target + "/" + temporary), "a live move's copy was removed")
        #expect(scene.records.count == 1)
        try scene.journal.end(held)
        #expect(scene.records.isEmpty)
    }

    @Test("A whole move the copying way leaves the item at the destination only, and no record")
    func aCopyingMoveEndsInOnePlace() throws {
        let scene = try Scene()
        defer { scene.cleanUp() }
        try FileManager.default.createDirectory(atPath: scene.source + "/Trip.pages/Data", withIntermediateDirectories: true)
        try scene.write(scene.source + "/Trip.pages/index.json", "{}")
        try scene.write(scene.source + "/Trip.pages/Data/photo.png", "png")

        let method = try ItemMove.move(scene.source + "/Trip.pages", to: scene.target + "/Trip.pages", journal: scene.journal, copying: true)
        #expect(method == .copied)
        #expect(!scene.exists(scene.source + "/Trip.pages"))
        #expect(try String(contentsOfFile: scene.target + "/Trip.pages/Data/photo.png", encoding: .utf8) == "png")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scene.target) == ["Trip.pages"])
        #expect(scene.records.isEmpty)

        #expect(throws: UbiquityKitError.self) {
            try ItemMove.move(scene.source + "/../target/Trip.pages", to: scene.source + "/Trip.pages", journal: scene.journal)
        }
    }
}
