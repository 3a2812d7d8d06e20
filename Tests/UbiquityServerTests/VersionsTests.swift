import Foundation
import Testing
import UbiquityIndex
import UbiquityPredicate
import UbiquityProtocol
import UbiquityTesting

/// `versions.list`, `version.read` and `version.resolve` against the real daemon, with conflict
/// copies made the way Syncthing names them.
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

    static func ids(_ versions: JSONValue?) -> [String] {
        (versions?["others"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// What a coordinated save writes is read back as a conflict version of the right item.
    @Test func theNamesOfAStaleSaveAreConflictVersionsAndTheTemporaryFileIsNeverAnItem() {
        for (name, host) in [("Item_1", "laptop"), ("notes.txt", "ann's mac.local"), (".hidden", "x"), ("a.b.c", "")] {
            let copy = CoordinatedSave.conflictName(of: name, savedAt: "20261122-103000", device: host)
            #expect(ConflictCopyName.parse(copy)?.original == name, "\(copy)")
        }
        #expect(SyncEngineFiles.isOwn(CoordinatedSave.temporaryName(pid: 42, attempt: 1)))
    }

    @Test func listingShowsTheCurrentVersionAndEachConflictCopyWithItsDevice() async throws {
        try await withTestDaemon { daemon in
            let documents = daemon.documents()
            let item = try daemon.place("Item_1", contents: "Milk")
            try daemon.place(Self.copyA, contents: "Oat milk")
            try daemon.place(Self.copyB, contents: "Whole milk!")
            let client = try Self.hello(daemon.socket)
            let listed = try Self.request(client, ["op": .string("versions.list"), "path": .string(item)])["result"]
            #expect(listed?["current"]?["id"]?.stringValue == "current")
            #expect(listed?["current"]?["size"]?.intValue == 4)
            #expect(listed?["hasUnresolvedConflicts"] == .bool(true))
            let others = listed?["others"]?.arrayValue ?? []
            #expect(Set(Self.ids(listed)) == [Self.copyA, Self.copyB], "\(String(describing: listed))")
            let a = others.first { $0["id"]?.stringValue == Self.copyA }
            #expect(a?["device"]?.stringValue == "AAAAAAA")
            #expect(a?["size"]?.intValue == 8)
            #expect(a?["path"]?.stringValue == documents + "/" + Self.copyA)
            #expect(a?["replaces"]?.stringValue == "Item_1")
            #expect(a?["conflict"] == .bool(true))

            let read = try Self.request(client, ["op": .string("version.read"), "path": .string(item), "version": .string(Self.copyB),
                                                 "offset": .integer(6), "length": .integer(100)])["result"]
            #expect(read?["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } == Data("milk!".utf8))
            #expect(read?["eof"] == .bool(true))
            #expect(read?["size"]?.intValue == 11)
        }
    }

    @Test func resolvingWithAVersionPutsItInPlaceRemovesTheOthersAndEndsTheConflictForSubscribers() async throws {
        try await withTestDaemon { daemon in
            let documents = daemon.documents()
            let item = try daemon.place("Item_1", contents: "Milk")
            try daemon.place(Self.copyA, contents: "Oat milk")
            try daemon.place(Self.copyB, contents: "Whole milk")
            let watcher = try Self.hello(daemon.socket)
            _ = try watcher.request(#"{"id":1,"op":"query.start","predicate":"hasUnresolvedConflicts == YES","batchingInterval":0}"#)
            var gathered: JSONValue?
            while gathered == nil {
                let line = try watcher.readJSON()
                if line["event"]?.stringValue == "query.gatheringFinished" { gathered = line }
            }
            #expect(gathered?["count"]?.intValue == 1)

            let client = try Self.hello(daemon.socket)
            let listed = try Self.request(client, ["op": .string("versions.list"), "path": .string(item)])["result"]
            let b = listed?["others"]?.arrayValue?.first { $0["id"]?.stringValue == Self.copyB }
            let resolved = try Self.request(client, ["op": .string("version.resolve"), "path": .string(item),
                                                     "keep": .string(Self.copyB), "etag": b?["etag"] ?? .null])
            #expect(resolved["result"]?["hasUnresolvedConflicts"] == .bool(false), "\(resolved)")
            #expect(resolved["result"]?["removed"]?.arrayValue == [.string(Self.copyA)])
            #expect(try String(contentsOfFile: item, encoding: .utf8) == "Whole milk")
            #expect(try FileManager.default.contentsOfDirectory(atPath: documents).sorted() == ["Item_1"])

            var removed: [String] = []
            let deadline = Date().addingTimeInterval(10)
            while removed.isEmpty && Date() < deadline {
                let line = try watcher.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                removed = (line["removed"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            }
            #expect(removed == [item], "the subscriber of hasUnresolvedConflicts == YES is told the item left")
        }
    }

    @Test func aStaleEtagAnUnknownVersionAndAPathOutsideAreRefusedWithTheirCodes() async throws {
        try await withTestDaemon { daemon in
            let item = try daemon.place("Item_1", contents: "Milk")
            try daemon.place(Self.copyA, contents: "Oat milk")
            let client = try Self.hello(daemon.socket)
            let stale = try Self.request(client, ["op": .string("version.resolve"), "path": .string(item),
                                                  "keep": .string(Self.copyA), "etag": .string("1-2.000000003-4")])
            #expect(stale["error"]?["code"]?.stringValue == "version.stale", "\(stale)")
            let unknown = try Self.request(client, ["op": .string("version.resolve"), "path": .string(item), "keep": .string("Item_1.nope")])
            #expect(unknown["error"]?["code"]?.stringValue == "version.unknown")
            #expect(try String(contentsOfFile: item, encoding: .utf8) == "Milk", "nothing changed after refusals")
            for (path, code) in [("/etc/passwd", "item.invalidPath"), (daemon.documents() + "/../Documents/Item_1", "item.invalidPath"),
                                 (daemon.documents() + "/" + Self.copyA, "item.invalidPath"), (daemon.documents() + "/Item_9", "item.notFound")] {
                let answer = try Self.request(client, ["op": .string("versions.list"), "path": .string(path)])
                #expect(answer["error"]?["code"]?.stringValue == code, "\(path): \(answer)")
            }
            let directory = try Self.request(client, ["op": .string("version.read"), "path": .string(item), "version": .string(Self.copyA),
                                                      "length": .integer(1 << 30)])
            #expect(directory["error"]?["code"]?.stringValue == "request.malformed")
        }
    }

    @Test func aLinkInsideTheContainerIsNeverFollowed() async throws {
        try await withTestDaemon { daemon in
            let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: outside) }
            try "secret".write(toFile: outside + "/Item_1", atomically: true, encoding: .utf8)
            try "copy".write(toFile: outside + "/" + Self.copyA, atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: daemon.documents() + "/linked", withDestinationPath: outside)
            let client = try Self.hello(daemon.socket)
            let answer = try Self.request(client, ["op": .string("version.resolve"), "path": .string(daemon.documents() + "/linked/Item_1"),
                                                   "keep": .string(Self.copyA)])
            #expect(answer["error"]?["code"]?.stringValue == "item.notFound", "\(answer)")
            #expect(try String(contentsOfFile: outside + "/Item_1", encoding: .utf8) == "secret")
        }
    }

    @Test func aPackageWithAConflictCopyInsideIsResolvedAsOneItem() async throws {
        try await withTestDaemon { daemon in
            let package = daemon.documents() + "/grocery.gro"
            try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
            try #"{"items":[{"name":"Milk"}]}"#.write(toFile: package + "/items.json", atomically: true, encoding: .utf8)
            let copy = "items.sync-conflict-20261122-103000-CCCCCCC.json"
            try #"{"items":[{"name":"Milk"},{"name":"Eggs"}]}"#.write(toFile: package + "/" + copy, atomically: true, encoding: .utf8)
            let client = try Self.hello(daemon.socket)
            let listed = try Self.request(client, ["op": .string("versions.list"), "path": .string(package)])["result"]
            #expect(Self.ids(listed) == ["grocery.gro/" + copy], "\(String(describing: listed))")
            #expect(listed?["others"]?.arrayValue?.first?["replaces"]?.stringValue == "grocery.gro/items.json")
            let resolved = try Self.request(client, ["op": .string("version.resolve"), "path": .string(package), "keep": .string("grocery.gro/" + copy)])
            #expect(resolved["result"]?["hasUnresolvedConflicts"] == .bool(false), "\(resolved)")
            #expect(try String(contentsOfFile: package + "/items.json", encoding: .utf8).contains("Eggs"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: package) == ["items.json"])
        }
    }
}
