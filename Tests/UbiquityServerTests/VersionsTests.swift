import Foundation
import Glibc
import Testing
import UbiquityIndex
import UbiquityKit
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// Versions against the real daemon, with conflict copies made the way Syncthing names them: the
/// daemon lists them (`versions.list`), UbiquityKit's `FileVersion` reads and resolves them in this
/// process, with its own rights, below the container root and without following a link.
@Suite(.ownThreads) struct VersionsTests {
    static let copyA = "Item_1.sync-conflict-20261122-103000-AAAAAAA"
    static let copyB = "Item_1.sync-conflict-20261122-103500-BBBBBBB"

    static func hello(_ socket: String) throws -> RawClient {
        let client = try RawClient(socket: socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        return client
    }

    static func request(_ client: RawClient, _ fields: [String: JSONValue]) throws -> JSONValue {
        var object = fields
        object["id"] = .integer(9)
        return try client.request(JSONLine.encode(.object(object))).response
    }

    static func entries(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// Runs `body`, which must throw a `UbiquityKitError` that `matches`; records an issue otherwise.
    /// `Item_1` ("Milk") with its two conflict copies ``copyA`` ("Oat milk") and ``copyB`` ("Whole milk").
    static func placeItemWithTwoCopies(_ daemon: InProcessDaemon) throws -> String {
        let item = try daemon.place("Item_1", contents: "Milk")
        try daemon.place(copyA, contents: "Oat milk")
        try daemon.place(copyB, contents: "Whole milk")
        return item
    }

    static func expectError<T>(_ what: String, _ matches: (UbiquityKitError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation,
                               _ body: () async throws -> T) async {
        do {
            let result = try await body()
            Issue.record("\(what): expected an error, got \(result)", sourceLocation: sourceLocation)
        } catch let error as UbiquityKitError {
            #expect(matches(error), "\(what): \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(what): expected a UbiquityKitError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// What a coordinated save writes is read back as a conflict version of the right item.
    @Test func theNamesOfAStaleSaveAreConflictVersionsAndTheTemporaryFileIsNeverAnItem() {
        for (name, host) in [("Item_1", "laptop"), ("notes.txt", "ann's mac.local"), (".hidden", "x"), ("a.b.c", "")] {
            let copy = CoordinatedSave.conflictName(of: name, savedAt: "20261122-103000", device: host)
            #expect(ConflictCopyName.parse(copy)?.original == name, "\(copy)")
        }
        #expect(SyncEngineFiles.isOwn(CoordinatedSave.temporaryName(pid: 42, attempt: 1)))
    }

    @Test func listingShowsTheCurrentVersionAndEachConflictCopyAndTheClientReadsThem() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            let item = try daemon.place("Item_1", contents: "Milk")
            try daemon.place(Self.copyA, contents: "Oat milk")
            try daemon.place(Self.copyB, contents: "Whole milk!")
            // On the wire: the container and its root come with the versions.
            let client = try Self.hello(daemon.socket)
            let listed = try Self.request(client, ["op": .string("versions.list"), "path": .string(item)])["result"]
            #expect(listed?["hasUnresolvedConflicts"] == .bool(true))
            #expect(listed?["container"]?.stringValue == "com.example.grocery")
            #expect(listed?["root"]?.stringValue == daemon.root + "/com.example.grocery")

            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let versions = try await FileVersion.versionsOfItem(at: item, connection: connection)
            #expect(versions.map(\.id) == ["current", Self.copyA, Self.copyB], "oldest first")
            let current = versions[0], a = versions[1], b = versions[2]
            #expect(current.size == 4 && !current.isConflict && current.path == item)
            #expect(a.localizedNameOfSavingComputer == "AAAAAAA")
            #expect(a.size == 8 && a.isConflict && a.replaces == "Item_1")
            #expect(a.path == documents + "/" + Self.copyA)
            #expect(versions.allSatisfy { $0.root == daemon.root + "/com.example.grocery" && $0.container == "com.example.grocery" })

            #expect(try current.contents() == Data("Milk".utf8))
            #expect(try b.contents() == Data("Whole milk!".utf8))
            #expect(try b.contents(limit: 11) == Data("Whole milk!".utf8))
            // A prefix cuts instead of refusing.
            #expect(try b.prefix(5) == (Data("Whole".utf8), true))
            #expect(try b.prefix(11) == (Data("Whole milk!".utf8), false))
            await Self.expectError("a version over the limit", { $0 == .versionTooLarge(id: Self.copyB, limit: 10) }) {
                try b.contents(limit: 10)
            }
        }
    }

    @Test func replacingWithAVersionPutsItInPlaceRemovesTheOthersAndEndsTheConflictForSubscribers() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            let item = try Self.placeItemWithTwoCopies(daemon)
            let watcher = try Self.hello(daemon.socket)
            _ = try watcher.request(#"{"id":1,"op":"query.start","predicate":"hasUnresolvedConflicts == YES","batchingInterval":0}"#)
            var gathered: JSONValue?
            while gathered == nil {
                let line = try watcher.readJSON()
                if line["event"]?.stringValue == "query.gatheringFinished" { gathered = line }
            }
            #expect(gathered?["count"]?.intValue == 1)

            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let b = try #require(try await FileVersion.otherVersionsOfItem(at: item, connection: connection).first { $0.id == Self.copyB })
            let inodeOfB = Self.inode(b.path)
            let etag = try await b.replaceItem(connection: connection, removingOthers: true)
            #expect(try Self.text(item) == "Whole milk")
            #expect(Self.inode(item) == inodeOfB, "renamed over the item, not copied")
            #expect(try Self.entries(documents) == ["Item_1"])
            #expect(etag == (try await FileVersion.currentVersionOfItem(at: item, connection: connection)).etag)

            var removed: [String] = []
            let deadline = Date().addingTimeInterval(10)
            while removed.isEmpty && Date() < deadline {
                let line = try watcher.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                removed = (line["removed"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            }
            #expect(removed == [item], "the subscriber of hasUnresolvedConflicts == YES is told the item left")
        }
    }

    @Test func keepingTheCurrentVersionRemovesTheCopiesAndKeepingACopyLeavesTheOthers() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            let item = try Self.placeItemWithTwoCopies(daemon)
            let connection = try await UbiquityConnection.connect(to: daemon.socket)

            // A copy, without removing the others: the other copy stays a conflict.
            let a = try #require(try await FileVersion.otherVersionsOfItem(at: item, connection: connection).first { $0.id == Self.copyA })
            try await a.replaceItem(connection: connection)
            #expect(try Self.text(item) == "Oat milk")
            #expect(try Self.entries(documents) == ["Item_1", Self.copyB])
            #expect(try await FileVersion.unresolvedConflictVersionsOfItem(at: item, connection: connection).map(\.id) == [Self.copyB])

            // The current one: the rest go, the item stays as it is.
            let before = try await FileVersion.currentVersionOfItem(at: item, connection: connection)
            let etag = try await FileVersion.removeOtherVersionsOfItem(at: item, connection: connection)
            #expect(etag == before.etag, "the item itself is not touched")
            #expect(try Self.text(item) == "Oat milk")
            #expect(try Self.entries(documents) == ["Item_1"])
        }
    }

    /// `café.txt` precomposed and decomposed are two items side by side (equal as strings): a
    /// copy of one is no version of the other, so resolving the other's conflicts leaves it.
    @Test func aCopyOfACanonicallyEqualSiblingIsNotAVersionOfTheItem() async throws {
        try await withDaemon { daemon in
            let composed = try daemon.place("caf\u{E9}.txt", contents: "one")
            let decomposed = try daemon.place("cafe\u{301}.txt", contents: "two")
            let copy = "caf\u{E9}.sync-conflict-20261122-103000-AAAAAAA.txt"
            let copyPath = try daemon.place(copy, contents: "one, elsewhere")
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            #expect(try await FileVersion.otherVersionsOfItem(at: decomposed, connection: connection).isEmpty)
            #expect(try await FileVersion.otherVersionsOfItem(at: composed, connection: connection).map { Array($0.id.utf8) }
                    == [Array(copy.utf8)])
            try await FileVersion.removeOtherVersionsOfItem(at: decomposed, connection: connection)
            #expect(Self.inode(copyPath) != nil, "the other item's copy stays")
        }
    }

    @Test func aVersionThatChangedSinceItWasListedIsRefusedAndNothingIsTouched() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            let item = try Self.placeItemWithTwoCopies(daemon)
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let versions = try await FileVersion.versionsOfItem(at: item, connection: connection)
            let a = versions[1], b = versions[2]
            #expect(a.id == Self.copyA && b.id == Self.copyB)

            // Another device's save arrives for copy A after the listing: a new file, a new etag.
            try daemon.place(Self.copyA, contents: "Soy milk")
            let stale: (UbiquityKitError) -> Bool = { $0 == .versionStale(item: item, id: Self.copyA) }
            await Self.expectError("reading a changed version", stale) { try a.contents() }
            await Self.expectError("choosing a changed version", stale) { try await a.replaceItem(connection: connection, removingOthers: true) }
            #expect(try Self.text(item) == "Milk", "nothing changed after the refusal")
            #expect(try Self.entries(documents) == ["Item_1", Self.copyA, Self.copyB])
            #expect(try Self.text(documents + "/" + Self.copyA) == "Soy milk")

            // A version gone since it was listed is refused the same way.
            try FileManager.default.removeItem(atPath: documents + "/" + Self.copyB)
            await Self.expectError("choosing a removed version", { $0 == .versionStale(item: item, id: Self.copyB) }) {
                try await b.replaceItem(connection: connection)
            }
            #expect(try Self.text(item) == "Milk")
            #expect(UbiquityKitError.versionStale(item: item, id: Self.copyA).description.contains("list the versions again"))
        }
    }

    @Test func pathsOutsideAContainerOrThroughALinkAreRefusedByTheListing() async throws {
        try await withDaemon { daemon in
            try daemon.place("Item_1", contents: "Milk")
            try daemon.place(Self.copyA, contents: "Oat milk")
            let outside = daemon.directory + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try "secret".write(toFile: outside + "/Item_1", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: daemon.documents() + "/linked", withDestinationPath: outside)
            let client = try Self.hello(daemon.socket)
            for (path, code) in [("/etc/passwd", "item.invalidPath"), (daemon.documents() + "/../Documents/Item_1", "item.invalidPath"),
                                 (daemon.documents() + "/" + Self.copyA, "item.invalidPath"), (daemon.documents() + "/Item_9", "item.notFound"),
                                 (daemon.documents() + "/linked/Item_1", "item.notFound")] {
                let answer = try Self.request(client, ["op": .string("versions.list"), "path": .string(path)])
                #expect(answer["error"]?["code"]?.stringValue == code, "\(path): \(answer)")
            }
        }
    }

    /// A link planted at a version's name, or at the directory it is in, after the listing: the
    /// client never follows it, and nothing outside the container is read, moved or removed.
    @Test func aLinkPlantedAtAVersionOrItsDirectoryIsNeverFollowed() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            let outside = daemon.directory + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try "secret".write(toFile: outside + "/Item_1", atomically: false, encoding: .utf8)
            try "their copy".write(toFile: outside + "/" + Self.copyA, atomically: false, encoding: .utf8)
            let connection = try await UbiquityConnection.connect(to: daemon.socket)

            // At the version's name: listed (as the link itself), but neither read nor put in place.
            let item = try daemon.place("Item_1", contents: "Milk")
            try FileManager.default.createSymbolicLink(atPath: documents + "/" + Self.copyA, withDestinationPath: outside + "/" + Self.copyA)
            let linked = try #require(try await FileVersion.otherVersionsOfItem(at: item, connection: connection).first)
            #expect(linked.id == Self.copyA)
            await Self.expectError("reading a link", { if case .versionFile(let path, let reason) = $0 { path == linked.path && reason.contains("symbolic link") } else { false } }) {
                try linked.contents()
            }
            await Self.expectError("choosing a link", { $0 == .versionNotAFile(path: linked.path, id: Self.copyA) }) {
                try await linked.replaceItem(connection: connection, removingOthers: true)
            }
            #expect(try Self.text(item) == "Milk")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: documents + "/" + Self.copyA) == outside + "/" + Self.copyA)

            // At the directory: listed while it was one, then swapped for a link to a look-alike.
            let sub = documents + "/sub"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            let inner = try placeAtomically(sub + "/Item_1", contents: "Eggs", staging: daemon.directory)
            try placeAtomically(sub + "/" + Self.copyA, contents: "Brown eggs", staging: daemon.directory)
            let versions = try await FileVersion.versionsOfItem(at: inner, connection: connection)
            #expect(versions.map(\.id) == ["current", Self.copyA])
            try FileManager.default.moveItem(atPath: sub, toPath: daemon.directory + "/moved")
            try FileManager.default.createSymbolicLink(atPath: sub, withDestinationPath: outside)
            for version in versions {
                await Self.expectError("reading through a link", { if case .versionFile(_, let reason) = $0 { reason.contains("symbolic link") } else { false } }) {
                    try version.contents()
                }
            }
            do {
                try await versions[1].replaceItem(connection: connection, removingOthers: true)
                Issue.record("a version listed through a directory that is now a link was put in place")
            } catch {}
            do {
                try await FileVersion.removeOtherVersionsOfItem(at: inner, connection: connection)
                Issue.record("the versions of an item behind a link were removed")
            } catch {}
            #expect(try Self.entries(outside) == ["Item_1", Self.copyA])
            #expect(try Self.text(outside + "/Item_1") == "secret")
            #expect(try Self.text(outside + "/" + Self.copyA) == "their copy")
        }
    }

    @Test func aCopyInsideAPackageReplacesTheFileItIsAVersionOf() async throws {
        try await withDaemon { daemon in
            let package = daemon.documents() + "/grocery.gro"
            try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
            try placeAtomically(package + "/items.json", contents: #"{"items":[{"name":"Milk"}]}"#, staging: daemon.directory)
            let copy = "items.sync-conflict-20261122-103000-CCCCCCC.json"
            try placeAtomically(package + "/" + copy, contents: #"{"items":[{"name":"Milk"},{"name":"Eggs"}]}"#, staging: daemon.directory)
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let others = try await FileVersion.otherVersionsOfItem(at: package, connection: connection)
            #expect(others.map(\.id) == ["grocery.gro/" + copy])
            #expect(others.first?.replaces == "grocery.gro/items.json")
            #expect(try others.first?.contents() == Data(#"{"items":[{"name":"Milk"},{"name":"Eggs"}]}"#.utf8))
            try await #require(others.first).replaceItem(connection: connection, removingOthers: true)
            #expect(try Self.text(package + "/items.json").contains("Eggs"))
            #expect(try Self.entries(package) == ["items.json"])
            #expect(try await FileVersion.otherVersionsOfItem(at: package, connection: connection).isEmpty)
        }
    }

    /// A whole package's copy trades places with the package in one step: the package's path never
    /// shows a missing or half-made package; the replaced one is removed after.
    @Test func aPackageCopyTradesPlacesWithThePackage() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            let package = documents + "/grocery.gro", copy = documents + "/grocery.sync-conflict-20261122-103000-DDDDDDD.gro"
            for (directory, list) in [(package, "Milk"), (copy, "Bread")] {
                try FileManager.default.createDirectory(atPath: directory + "/images", withIntermediateDirectories: true)
                try placeAtomically(directory + "/items.json", contents: #"{"items":[{"name":"\#(list)"}]}"#, staging: daemon.directory)
                try placeAtomically(directory + "/images/\(list).png", contents: list, staging: daemon.directory)
            }
            try FileManager.default.createDirectory(atPath: copy + "/extra", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: copy + "/extra/link.png", withDestinationPath: "/etc/hostname")
            try FileManager.default.createSymbolicLink(atPath: copy + "/etc", withDestinationPath: "/etc")
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let versions = try await FileVersion.versionsOfItem(at: package, connection: connection)
            #expect(versions.map(\.path) == [package, copy])
            let chosen = versions[1]
            #expect(chosen.isDirectory && chosen.replaces == "grocery.gro")
            await Self.expectError("reading a directory", { $0 == .versionNotAFile(path: copy, id: chosen.id) }) { try chosen.contents() }
            // A file inside a package's version, read below the root; a link inside it is refused.
            #expect(try chosen.contents(ofFile: "items.json") == Data(#"{"items":[{"name":"Bread"}]}"#.utf8))
            #expect(try chosen.contents(ofFile: "images/Bread.png") == Data("Bread".utf8))
            await Self.expectError("a link as the file", { if case .versionFile = $0 { true } else { false } }) {
                try chosen.contents(ofFile: "extra/link.png")
            }
            await Self.expectError("a link on the way", { if case .versionFile = $0 { true } else { false } }) {
                try chosen.contents(ofFile: "etc/hostname")
            }
            let copyInode = Self.inode(copy)
            try await chosen.replaceItem(connection: connection, removingOthers: true)
            #expect(Self.inode(package) == copyInode, "the copy's directory itself took the package's place")
            #expect(try Self.text(package + "/items.json").contains("Bread"))
            #expect(try Self.entries(package + "/images") == ["Bread.png"])
            #expect(try Self.entries(documents) == ["grocery.gro"], "the replaced package is removed")
            #expect(try await FileVersion.otherVersionsOfItem(at: package, connection: connection).isEmpty)
        }
    }

    /// The reader's own rights decide, not the daemon's: as uid 54321 (this thread's file-system
    /// uid, which drops root's overrides), a root-only copy cannot be read while the others can.
    /// The daemon runs as root and used to read it for anyone. Needs root.
    @Test func readingIsDecidedByTheKernelWithTheReadersRights() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            chmod(daemon.directory, 0o755)      // mkdtemp's 0700: let the other uid reach the container
            let item = try Self.placeItemWithTwoCopies(daemon)
            chmod(item, 0o644)
            chmod(documents + "/" + Self.copyA, 0o600)
            chmod(documents + "/" + Self.copyB, 0o644)
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let versions = try await FileVersion.versionsOfItem(at: item, connection: connection)
            #expect(versions.map(\.id) == ["current", Self.copyA, Self.copyB])
            let reads = try await OtherFileSystemUser.run(uid: 54321) {
                versions.map { version in
                    do { return String(decoding: try version.contents(), as: UTF8.self) } catch { return "error: \(error)" }
                }
            }
            #expect(reads == ["Milk", "error: \(documents)/\(Self.copyA): cannot open it: Permission denied", "Whole milk"])
            #expect(try versions[1].contents() == Data("Oat milk".utf8), "root may read it")
        }
    }
}

/// Runs code on a thread of its own whose file-system uid and gid are another user's: the kernel
/// checks that thread's file accesses as that user (and root's overrides are dropped for it),
/// while the rest of the test process stays root. `setfsuid` is a plain system call, per thread.
enum OtherFileSystemUser {
    /// `setfsuid` and `setfsgid` (declared in <sys/fsuid.h>, which Glibc's module leaves out).
    private typealias SetID = @convention(c) (UInt32) -> Int32
    private static let setfsuid = unsafeBitCast(dlsym(nil, "setfsuid"), to: SetID.self)
    private static let setfsgid = unsafeBitCast(dlsym(nil, "setfsgid"), to: SetID.self)

    static func run<T: Sendable>(uid: UInt32, _ body: @escaping @Sendable () -> T) async throws -> T {
        let outcome: T? = await withCheckedContinuation { continuation in
            let thread = Thread {
                let setfsuid = Self.setfsuid, setfsgid = Self.setfsgid
                _ = setfsgid(uid)
                _ = setfsuid(uid)
                // setfsuid answers the previous value; an invalid one changes nothing.
                guard setfsuid(UInt32.max) == Int32(uid), setfsgid(UInt32.max) == Int32(uid) else {
                    _ = setfsuid(0); _ = setfsgid(0)
                    continuation.resume(returning: nil)
                    return
                }
                let result = body()
                _ = setfsuid(0)
                _ = setfsgid(0)
                continuation.resume(returning: result)
            }
            thread.start()
        }
        guard let outcome else { throw TestDaemonError("cannot take file-system uid \(uid) (not root?)") }
        return outcome
    }
}
