import Foundation
import Testing
@testable import UbiquityKit
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// A one-shot answer's items in UbiquityKit, which keeps them as the daemon's bytes until asked,
/// against the same answer read whole by a bare client with Foundation's decoder: the same items,
/// under any spelling, written back as the daemon wrote them; also after the connection is gone,
/// and read by four threads at once (as `grocery list` reads them).
@Suite(.ownThreads) struct AnswerItemsTests {
    /// Names with every kind of byte JSON escapes or UTF-8 spells in several bytes.
    static let names = ["Item_plain", "Item_caf\u{E9}", "Item_e\u{301}", "Item_\u{1F34E} pommes", "Item_\"quoted\"",
                        "Item_back\\slash", "Item_new\nline", "Item_tab\t", "Item_\u{1}", "Item_\u{1B}[2J", "Item_\u{2028}\u{2029}",
                        "Item_\u{7F}", "Item_\u{FEFF}"]
    /// Every kind of value an attribute holds: strings, integers, dates, booleans, lists.
    static let attributes = ["name", "kMDItemDisplayName", "path", "kMDItemURL", "size", "kMDItemFSCreationDate",
                             "kMDItemFSContentChangeDate", "kMDItemContentType", "kMDItemContentTypeTree", "isDirectory",
                             "kMDItemFSInvisible", "kMDItemUserTags", "NSMetadataUbiquitousItemContainerIdentifier",
                             "hasUnresolvedConflicts"]

    /// The answer as a bare client reads it: the items it must be.
    static func reference(_ socket: String, _ predicate: String) throws -> [WireItem] {
        let client = try RawClient(socket: socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        let request: JSONValue = .object(["id": .integer(1), "op": .string("query.start"), "predicate": .string(predicate),
                                          "scope": .string("documents"), "live": .bool(false),
                                          "attributes": .array(attributes.map { .string($0) })])
        try client.send(JSONLine.encode(request))
        while true {
            let message = try client.readJSON(within: 30)
            try #require(message["error"] == nil, "\(message)")
            guard message["event"]?.stringValue == "query.gatheringFinished" else { continue }
            return try (message["results"]?.arrayValue ?? []).map { try WireItem(json: $0) }
        }
    }

    /// The one-shot query these tests ask: Documents, every kind of attribute.
    static func oneShot(_ predicate: String, on connection: UbiquityConnection) -> MetadataQuery {
        let query = MetadataQuery(connection: connection, predicateFormat: predicate)
        query.searchScopes = .documents
        query.attributes = attributes
        query.isLive = false
        return query
    }

    /// `count` items with long names (120 bytes of padding, then one of ``names``): an answer
    /// well over 64 KiB. Returns the predicate that finds them.
    static func placeLongNames(_ daemon: InProcessDaemon, count: Int) throws -> String {
        let padding = String(repeating: "p", count: 120)
        for i in 0..<count { _ = try daemon.place("Item_\(i)_\(padding)_\(names[i % names.count])", contents: "\(i)") }
        return "name LIKE 'Item_*'"
    }

    /// The answer through UbiquityKit; the connection is closed before the items are looked at.
    static func answer(_ socket: String, _ predicate: String) async throws -> [MetadataItem] {
        try await UbiquityConnection.withConnection(to: socket) { connection in
            let query = oneShot(predicate, on: connection)
            for try await _ in try await query.start() {}
            return query.results
        }
    }

    static func check(_ items: [MetadataItem], against reference: [WireItem]) {
        #expect(items.count == reference.count)
        for (item, wire) in zip(items, reference) {
            let expected = MetadataItem(path: wire.path, oldPath: wire.oldPath, attributes: wire.attributes)
            #expect(item == expected && item.hashValue == expected.hashValue, "\(wire.path.debugDescription)")
            #expect(item.path.utf8.elementsEqual(wire.path.utf8) && item.oldPath == nil && item.attributes == wire.attributes)
            #expect(item.name == expected.name && item.size == expected.size && item.modificationDate == expected.modificationDate)
            for spelling in ["NSMetadataItemFSNameKey", "kMDItemFSSize", "kMDItemUserTags", "isDirectory", "kMDItemPath"] {
                #expect(item.value(forAttribute: spelling) == expected.value(forAttribute: spelling))
            }
            var written: [UInt8] = []
            item.writeJSON(to: &written)
            #expect(written == Array(JSONLine.encode(wire.json).utf8), "\(wire.path.debugDescription)")
        }
    }

    @Test func oddNamesAndEveryKindOfValueReadAndWriteAsTheDaemonSentThem() async throws {
        try await withDaemon { daemon in
            for (i, name) in Self.names.enumerated() { _ = try daemon.place(name, contents: String(repeating: "x", count: i)) }
            try FileManager.default.createDirectory(atPath: daemon.documents() + "/Item_directory \u{E9}", withIntermediateDirectories: false)
            let predicate = "name LIKE 'Item_*'"
            let reference = try Self.reference(daemon.socket, predicate)
            #expect(reference.count == Self.names.count + 1)
            Self.check(try await Self.answer(daemon.socket, predicate), against: reference)
        }
    }

    /// An answer over 64 KiB: its items are ranges of the connection's buffer itself.
    @Test func aLongAnswerReadByFourThreadsAtOnce() async throws {
        try await withDaemon { daemon in
            let predicate = try Self.placeLongNames(daemon, count: 700)
            let reference = try Self.reference(daemon.socket, predicate)
            #expect(reference.count == 700)
            let items = try await Self.answer(daemon.socket, predicate)
            // Four threads, each from its own quarter on, as GroceryItemFiles reads them.
            let read = await withTaskGroup(of: [String].self) { group in
                for quarter in 0..<4 {
                    group.addTask { items.rotated(by: quarter * 175).map { $0.path + " " + JSONLine.encode(.object($0.attributes)) } }
                }
                return await group.reduce(into: []) { $0.append($1.sorted()) }
            }
            let expected = reference.map { $0.path + " " + JSONLine.encode(.object($0.attributes)) }.sorted()
            #expect(read.count == 4 && read.allSatisfy { $0 == expected })
            Self.check(items, against: reference)
        }
    }

    /// A live query keeps its results for long: they hold their own fields, not the line they
    /// came in; a one-shot query's are the daemon's bytes.
    @Test func aLiveQueryKeepsNoLineAndAOneShotQueryItsBytes() async throws {
        try await withDaemon { daemon in
            for i in 0..<700 { _ = try daemon.place("Item_\(i)_" + String(repeating: "p", count: 100), contents: "\(i)") }
            let predicate = "name LIKE 'Item_*'"
            let reference = try Self.reference(daemon.socket, predicate)
            let oneShot = try await Self.answer(daemon.socket, predicate)
            #expect(oneShot.count == 700 && oneShot.allSatisfy { $0.keptAsBytes })
            try await UbiquityConnection.withConnection(to: daemon.socket) { connection in
                let query = MetadataQuery(connection: connection, predicateFormat: predicate)
                query.searchScopes = .documents
                query.attributes = Self.attributes
                var gathered: [MetadataItem] = []
                for try await notification in try await query.start() {
                    guard case .didFinishGathering(let results) = notification else { continue }
                    gathered = results
                    break
                }
                await query.stop()
                #expect(gathered.count == 700 && gathered.allSatisfy { !$0.keptAsBytes })
                #expect(query.results.allSatisfy { !$0.keptAsBytes })
                Self.check(query.results, against: reference)
            }
        }
    }
}

extension Array {
    fileprivate func rotated(by count: Int) -> [Element] { Array(self[count...] + self[..<count]) }
}
