import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquitySystem
import UbiquityTesting

/// `ubiq move-in` and `ubiq move-out` against the real daemon: one rename on one file system, a
/// copy made durable then committed by one rename across two (`/dev/shm` is a tmpfs here), the
/// daemon's query seeing the item arrive and go, and every refusal leaving both places as they
/// were. Then with a real Syncthing pair: moved out on A is gone from B and kept on A; moved in on
/// A appears on B.
@Suite(.ownThreads) struct MoveCommandTests {
    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    static func device(_ path: String) throws -> UInt64 {
        var info = stat()
        try #require(stat(path, &info) == 0, "cannot stat \(path)")
        return UInt64(info.st_dev)
    }

    /// A scratch directory outside every container, on the file system of `near`.
    static func scratch(near: String) throws -> String {
        let path = near + "/move-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A live query of the daemon for the item named `name`: ``next(_:)`` waits for it to be
    /// added or removed.
    struct LiveItem {
        let client: RawClient
        let name: String

        init(_ daemon: TestDaemon, name: String) throws {
            client = try RawClient(socket: daemon.socket)
            self.name = name
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name == '\#(name)'","batchingInterval":0}"#)
            while try client.readJSON(within: 30)["event"]?.stringValue != "query.gatheringFinished" {}
        }

        /// Reads events until one has the item in its `list` ("added" or "removed"), within 30 s.
        func next(_ list: String) throws -> Bool {
            while true {
                let event = try client.readJSON(within: 30)
                guard event["event"]?.stringValue == "query.update", case .array(let items)? = event[list] else { continue }
                if items.contains(where: { $0["path"]?.stringValue.map { PathBytes.lastComponent(of: $0) } == name }) { return true }
            }
        }
    }

    @Test func movesInAndOutByOneRenameOnOneFileSystem() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let local = try Self.scratch(near: PathBytes.directory(of: daemon.root))
        defer { try? FileManager.default.removeItem(atPath: local) }
        let s = ["--socket", daemon.socket]
        let source = local + "/notes.txt", item = daemon.documents() + "/notes.txt"
        try Data("buy bread".utf8).write(to: URL(fileURLWithPath: source))
        let before = Self.inode(source)
        let live = try LiveItem(daemon, name: "notes.txt")

        let movedIn = try ubiq.run(["move-in", source, item] + s)
        #expect(movedIn.status == 0 && movedIn.stdout == "moved \(source) to \(item)\n", "\(movedIn.stdout)\(movedIn.stderr)")
        #expect(!FileManager.default.fileExists(atPath: source))
        #expect(Self.inode(item) == before, "one rename keeps the inode")
        #expect(try live.next("added"), "the daemon's query did not see the item arrive")

        // Relative paths with `..` are read by their text, as a shell would.
        let back = local + "/sub/../notes.txt"
        try FileManager.default.createDirectory(atPath: local + "/sub", withIntermediateDirectories: true)
        let movedOut = try ubiq.run(["move-out", "--json", item, back] + s)
        #expect(movedOut.status == 0, "\(movedOut.stderr)")
        #expect(movedOut.stdout == #"{"destination":"\#(source)","method":"renamed","source":"\#(item)"}"# + "\n", "\(movedOut.stdout)")
        #expect(try String(contentsOfFile: source, encoding: .utf8) == "buy bread")
        #expect(!FileManager.default.fileExists(atPath: item))
        #expect(try live.next("removed"), "the daemon's query did not see the item go")
    }

    @Test func movesAPackageAcrossFileSystemsByACopyCommittedInOneRename() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let local = try Self.scratch(near: "/dev/shm")
        defer { try? FileManager.default.removeItem(atPath: local) }
        try #require(try Self.device(local) != Self.device(daemon.root), "/dev/shm must be another file system than \(daemon.root)")
        let s = ["--socket", daemon.socket]
        let source = local + "/Trip.pages", item = daemon.documents() + "/Trip.pages"
        try FileManager.default.createDirectory(atPath: source + "/Data", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: source + "/index.json"))
        try Data(repeating: 7, count: 300_000).write(to: URL(fileURLWithPath: source + "/Data/photo.png"))
        try FileManager.default.createSymbolicLink(atPath: source + "/Data/latest", withDestinationPath: "photo.png")
        chmod(source + "/index.json", 0o640)
        let live = try LiveItem(daemon, name: "Trip.pages")

        let movedIn = try ubiq.run(["move-in", "--json", source, item] + s)
        #expect(movedIn.status == 0, "\(movedIn.stderr)")
        #expect(movedIn.stdout.contains(#""method":"copied""#), "\(movedIn.stdout)")
        #expect(!FileManager.default.fileExists(atPath: source), "the source is removed once the copy is in place")
        #expect(try Data(contentsOf: URL(fileURLWithPath: item + "/Data/photo.png")) == Data(repeating: 7, count: 300_000))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: item + "/Data/latest") == "photo.png", "a link is copied as a link")
        var info = stat()
        #expect(stat(item + "/index.json", &info) == 0 && info.st_mode & 0o777 == 0o640, "the mode is kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()) == ["Trip.pages"], "no temporary copy is left")
        #expect(try live.next("added"), "the daemon's query did not see the package arrive")

        let movedOut = try ubiq.run(["move-out", item, source] + s)
        #expect(movedOut.status == 0 && movedOut.stdout.contains("(copied across file systems)"), "\(movedOut.stdout)\(movedOut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: item))
        #expect(try String(contentsOfFile: source + "/index.json", encoding: .utf8) == "{}")
        #expect(try live.next("removed"), "the daemon's query did not see the package go")
    }

    @Test func refusalsMoveNothing() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let local = try Self.scratch(near: PathBytes.directory(of: daemon.root))
        defer { try? FileManager.default.removeItem(atPath: local) }
        let s = ["--socket", daemon.socket]
        let source = local + "/list.txt"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: source))
        let taken = try daemon.place("list.txt", contents: "theirs")

        let onto = try ubiq.run(["move-in", source, taken] + s)
        #expect(onto.status == 1 && onto.stderr.contains("something is there already: nothing was moved"), "\(onto.stderr)")
        let outside = try ubiq.run(["move-in", source, local + "/elsewhere.txt"] + s)
        #expect(outside.status == 1 && outside.stderr.contains("not inside a container"), "\(outside.stderr)")
        let fromInside = try ubiq.run(["move-in", taken, daemon.documents() + "/copy.txt"] + s)
        #expect(fromInside.status == 1 && fromInside.stderr.contains("already in the container"), "\(fromInside.stderr)")
        let intoContainer = try ubiq.run(["move-out", taken, daemon.documents() + "/other.txt"] + s)
        #expect(intoContainer.status == 1 && intoContainer.stderr.contains("a move out goes outside every container"), "\(intoContainer.stderr)")
        let outOnto = try ubiq.run(["move-out", taken, source] + s)
        #expect(outOnto.status == 1 && outOnto.stderr.contains("something is there already"), "\(outOnto.stderr)")
        let missing = try ubiq.run(["move-in", local + "/nothing.txt", daemon.documents() + "/nothing.txt"] + s)
        #expect(missing.status == 1 && missing.stderr.contains("there is no such item"), "\(missing.stderr)")

        #expect(try String(contentsOfFile: source, encoding: .utf8) == "mine")
        #expect(try String(contentsOfFile: taken, encoding: .utf8) == "theirs")
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()) == ["list.txt"])
    }

    @Test("Moved out on A: gone from B, kept on A outside the container; moved in on A: appears on B")
    func moveOutAndInTravelToTheOtherDevice() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let onA = try devices.a.place("Item_move", contents: "a jar of honey")
        try devices.waitUntilInSync()
        let onB = devices.b.documents + "/Item_move"
        #expect(try String(contentsOfFile: onB, encoding: .utf8) == "a jar of honey")
        let kept = devices.a.root + "/../kept-Item_move"

        let movedOut = try ubiq.run(["move-out", onA, kept, "--socket", devices.a.socket])
        #expect(movedOut.status == 0, "\(movedOut.stderr)")
        try devices.waitUntilInSync()
        #expect(!FileManager.default.fileExists(atPath: onB), "B still has the item moved out on A")
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "a jar of honey", "A keeps it outside the container")

        let movedIn = try ubiq.run(["move-in", kept, onA, "--socket", devices.a.socket])
        #expect(movedIn.status == 0, "\(movedIn.stderr)")
        try devices.waitUntilInSync()
        #expect(try String(contentsOfFile: onB, encoding: .utf8) == "a jar of honey", "the item moved in on A did not reach B")
        #expect(!FileManager.default.fileExists(atPath: kept))
    }
}
