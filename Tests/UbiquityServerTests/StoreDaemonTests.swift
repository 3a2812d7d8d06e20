import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityStore
import UbiquityTesting
@testable import UbiquityServer

/// Relational stores served by the real daemon on a real socket, with real files: segments made
/// by "other devices" (``StoreReplica``) are put into the container as a sync engine delivers
/// them, and the watcher starts their import (docs/stores.md, docs/protocol.md).
@Suite("Relational stores against the real daemon", .serialized, .ownThreads)
struct StoreDaemonTests {
    static let container = "com.example.grocery"

    static func schemaJSON(version: Int = 1, extraItemColumns: String = "", dropNote: Bool = false) -> String {
        let note = dropNote ? "" : #",{"name":"note","type":"string"}"#
        return #"{"version":\#(version),"tables":[{"name":"items","columns":[{"name":"name","type":"string","nullable":false},{"name":"quantity","type":"integer"}\#(note),{"name":"created","type":"date"}\#(extraItemColumns)]},{"name":"tags","columns":[{"name":"name","type":"string","nullable":false}],"uniqueBy":["name"]}],"relationships":[{"name":"tags","from":"items","to":"tags","inverse":"items"}]}"#
    }

    static let schema = try! StoreWire.schema(try! JSONLine.decode(Array(schemaJSON().utf8)))

    static func open(_ client: RawClient, id: Int = 1, schema: String = schemaJSON()) throws -> JSONValue {
        try client.result(#"{"id":\#(id),"op":"store.open","store":"grocery","schema":\#(schema)}"#)
    }

    /// Two connections to `daemon`, each with the store open; the first's `store.open` answer.
    static func twoOpened(_ daemon: InProcessDaemon) throws -> (RawClient, RawClient, JSONValue) {
        let first = try RawClient.greeted(socket: daemon.socket), second = try RawClient.greeted(socket: daemon.socket)
        let opened = try open(first)
        _ = try open(second)
        return (first, second, opened)
    }

    static func errorOf(_ client: RawClient, _ line: String) throws -> JSONValue? { try client.request(line).response["error"] }

    static func names(_ fetched: JSONValue) -> [String] { fetched["rows"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [] }

    /// The next `store.changed` on `client` within a deadline (other events and lines are skipped).
    static func nextChange(_ client: RawClient, within seconds: Double = 15) throws -> JSONValue {
        try nextEvent(client, within: seconds, "store.changed") { $0["event"]?.stringValue == "store.changed" }
    }

    /// The next message on `client` that `wanted` accepts, within a deadline.
    static func nextEvent(_ client: RawClient, within seconds: Double, _ what: String, _ wanted: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if wanted(message) { return message }
        }
        throw TestDaemonError("no \(what) within \(seconds) s")
    }

    /// Puts `bytes` in place as a sync engine does: a temporary name, then a rename into `logs/<device>/<sequence>`.
    static func deliver(_ bytes: [UInt8], device: String, sequence: UInt64, root: String) throws {
        let folder = "\(root)/\(container)/.ubiquity-stores/grocery/logs/\(device)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = "\(folder)/.syncthing.\(sequence).tmp"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, "\(folder)/\(sequence)") == 0 else { throw TestDaemonError("rename failed: \(errno)") }
    }

    /// A segment of device `device` inserting `names` as items (sequence numbers follow on from `replica`).
    static func segment(_ replica: inout StoreReplica, inserting names: [String], ids: [UInt64]) throws -> [UInt8] {
        let operations = zip(names, ids).map { name, id in
            StoreOperation.insert(table: "items", id: RowID(high: 7, low: id), values: ["name": .string(name), "quantity": .integer(1)])
        }
        guard let made = try replica.commit(operations, wall: DeviceStoreWall.now()) else { throw TestDaemonError("nothing committed") }
        return made.segment.encoded()
    }

    @Test("open → save → fetch: a transaction acknowledged after its segment is written, rows fetched by where, sort and limit")
    func openSaveFetch() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            let opened = try Self.open(client)
            #expect(opened["opened"] == .string("created"))
            #expect(opened["schema"]?["version"] == .integer(1))
            #expect(opened["handle"]?.intValue != nil)
            let device = try #require(opened["device"]?.stringValue)

            let saved = try client.result(#"""
                {"id":2,"op":"store.save","store":"grocery","changes":[
                {"insert":"items","id":"00000000000000000000000000000001","values":{"name":"carrots","quantity":3,"created":1767225600000}},
                {"insert":"items","values":{"name":"bread","quantity":1}},
                {"insert":"items","values":{"name":"cheese"}},
                {"insert":"tags","values":{"name":"mall"}},
                {"relate":"tags","from":"00000000000000000000000000000001","to":"98471ebd5834f35ea8bba0281d3c03c2"}]}
                """#.replacingOccurrences(of: "\n", with: ""))
            let inserted = (saved["inserted"]?.arrayValue ?? []).compactMap { $0.stringValue }
            #expect(inserted.count == 4)
            #expect(inserted.first == "00000000000000000000000000000001")
            #expect(inserted.last == "98471ebd5834f35ea8bba0281d3c03c2", "a tag's id is derived from its name")
            #expect(saved["segment"] == .integer(1))
            // Acknowledged means on disk: this device's segment 1 is in the container.
            let segment = "\(daemon.root)/\(Self.container)/.ubiquity-stores/grocery/logs/\(device)/1"
            #expect(FileManager.default.fileExists(atPath: segment))

            let all = try client.result(#"{"id":3,"op":"store.fetch","store":"grocery","table":"items","sort":"name"}"#)
            #expect(Self.names(all) == ["bread", "carrots", "cheese"])
            #expect(all["count"] == .integer(3))
            let carrots = all["rows"]?.arrayValue?.first { $0["name"]?.stringValue == "carrots" }
            #expect(carrots?["created"] == .integer(1_767_225_600_000) && carrots?["note"] == nil)
            let more = try client.result(#"{"id":4,"op":"store.fetch","store":"grocery","table":"items","where":[{"column":"quantity","op":">=","value":1}],"sort":["quantity:desc"]}"#)
            #expect(Self.names(more) == ["carrots", "bread"], "cheese has no quantity: it meets no ordering")
            let one = try client.result(#"{"id":5,"op":"store.fetch","store":"grocery","table":"items","where":[{"column":"name","value":"bread"}],"limit":1}"#)
            #expect(Self.names(one) == ["bread"])
            let none = try client.result(#"{"id":6,"op":"store.fetch","store":"grocery","table":"items","where":[{"column":"quantity","op":"==","value":null}]}"#)
            #expect(Self.names(none) == ["cheese"])

            // Bad input: a clear error naming what was wrong.
            let column = try Self.errorOf(client, #"{"id":7,"op":"store.fetch","store":"grocery","table":"items","where":[{"column":"quantty","op":">","value":1}]}"#)
            #expect(column?["code"] == .string("store.invalidChange"))
            #expect(column?["message"]?.stringValue?.contains("did you mean 'quantity'?") == true)
            let type = try Self.errorOf(client, #"{"id":8,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"x","quantity":"two"}}]}"#)
            #expect(type?["code"] == .string("store.invalidChange"))
            #expect(type?["message"]?.stringValue?.contains("'items.quantity' is a integer column") == true)
            let missing = try Self.errorOf(client, #"{"id":9,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"quantity":2}}]}"#)
            #expect(missing?["code"] == .string("store.invalidChange"), "name is not nullable")
            let unknown = try Self.errorOf(client, #"{"id":10,"op":"store.describe","store":"pantry"}"#)
            #expect(unknown?["code"] == .string("store.unknown"))
            let badName = try Self.errorOf(client, #"{"id":11,"op":"store.open","store":"../kv","schema":\#(Self.schemaJSON())}"#)
            #expect(badName?["code"] == .string("store.invalidName"))
            let table = try Self.errorOf(client, #"{"id":12,"op":"store.fetch","store":"grocery","table":"item"}"#)
            #expect(table?["message"]?.stringValue?.contains("there is no table 'item'") == true)
            // A refused transaction changed nothing.
            #expect(Self.names(try client.result(#"{"id":13,"op":"store.fetch","store":"grocery","table":"items"}"#)).count == 3)
        }
    }

    @Test("Schemas only grow: an additive version upgrades the store, an older one opens it, anything else is refused; the schema is kept across a restart")
    func schemaEvolution() async throws {
        let state = try TemporaryFolder()
        try await withDaemon(environment: ["STATE_DIRECTORY": state.path]) { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            _ = try Self.open(client)
            _ = try client.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"carrots"}}]}"#)
            let v2 = Self.schemaJSON(version: 2, extraItemColumns: #",{"name":"aisle","type":"string"}"#)
            let upgraded = try Self.open(client, id: 3, schema: v2)
            #expect(upgraded["opened"] == .string("upgraded"))
            #expect(upgraded["schema"]?["version"] == .integer(2))
            _ = try client.result(#"{"id":4,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"milk","aisle":"dairy"}}]}"#)
            // A client still on version 1 opens it: the store goes on with version 2.
            let older = try RawClient.greeted(socket: daemon.socket)
            let reopened = try Self.open(older, id: 5)
            #expect(reopened["opened"] == .string("opened") && reopened["schema"]?["version"] == .integer(2))
            // Removing a column, or changing without a new version: refused, naming what.
            let removed = try Self.errorOf(client, #"{"id":6,"op":"store.open","store":"grocery","schema":\#(Self.schemaJSON(version: 3, dropNote: true))}"#)
            #expect(removed?["code"] == .string("store.schemaNotAdditive"))
            #expect(removed?["column"] == .string("note"))
            let sameVersion = try Self.errorOf(client, #"{"id":7,"op":"store.open","store":"grocery","schema":\#(Self.schemaJSON(version: 2))}"#)
            #expect(sameVersion?["code"] == .string("store.schemaNotAdditive"))
            let rows = try client.result(#"{"id":8,"op":"store.fetch","store":"grocery","table":"items","sort":"name"}"#)
            #expect(Self.names(rows) == ["carrots", "milk"])
        }
        // A new daemon on the same state directory knows the store and its schema without a client's open.
        try await withDaemon(environment: ["STATE_DIRECTORY": state.path]) { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            let described = try client.result(#"{"id":1,"op":"store.describe","store":"grocery"}"#)
            #expect(described["schema"]?["version"] == .integer(2))
        }
    }

    @Test("A save on one connection and a segment from another device reach a subscriber as store.changed; the saver is not told of its own save")
    func changesReachSubscribers() async throws {
        try await withDaemon { daemon in
            let (watcher, writer, opened) = try Self.twoOpened(daemon)
            let device = try #require(opened["device"]?.stringValue)
            _ = try writer.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"insert":"items","id":"00000000000000000000000000000001","values":{"name":"carrots"}}]}"#)
            let local = try Self.nextChange(watcher)
            let url = "ubiquity-store://com.example.grocery/grocery/items/00000000000000000000000000000001"
            #expect(local["inserted"] == .array([.string(url)]))
            #expect(local["devices"] == .array([.string(device)]))
            #expect(local["handle"] == opened["handle"])

            // Another device's segment arrives as the sync engine delivers it: the watcher starts its import.
            var phone = StoreReplica(schema: Self.schema, device: DeviceID("phone")!)
            try Self.deliver(try Self.segment(&phone, inserting: ["bread", "milk"], ids: [1, 2]), device: "phone", sequence: 1, root: daemon.root)
            let remote = try Self.nextChange(watcher)
            #expect(remote["devices"] == .array([.string("phone")]))
            #expect(remote["inserted"]?.arrayValue?.count == 2)
            // The writer heard of the phone's rows, never of its own save: its first store.changed is the phone's.
            let heard = try Self.nextChange(writer)
            #expect(heard["devices"] == .array([.string("phone")]))
            let rows = try writer.result(#"{"id":3,"op":"store.fetch","store":"grocery","table":"items","sort":"name"}"#)
            #expect(Self.names(rows) == ["bread", "carrots", "milk"])
        }
    }

    /// The next event of live fetch `watch` (`store.gatheringFinished` or `store.update`) within a deadline.
    static func nextWatchEvent(_ client: RawClient, watch: JSONValue?, within seconds: Double = 15) throws -> JSONValue {
        try nextEvent(client, within: seconds, "event of live fetch \(String(describing: watch))") { $0["watch"] == watch && $0["event"] != nil }
    }

    @Test("A live fetch gathers, then sees its own connection's save, another connection's and another device's segment as added, changed and removed rows")
    func liveFetch() async throws {
        try await withDaemon { daemon in
            let (client, other, _) = try Self.twoOpened(daemon)
            _ = try client.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"insert":"items","id":"00000000000000000000000000000001","values":{"name":"carrots","quantity":3}},{"insert":"items","values":{"name":"bread","quantity":1}}]}"#)
            let (answer, early) = try client.request(#"{"id":3,"op":"store.watch","store":"grocery","table":"items","where":[{"column":"quantity","op":">=","value":2}],"sort":"name"}"#)
            #expect(early.allSatisfy { $0["event"]?.stringValue != "store.gatheringFinished" }, "no event before the answer")
            let watch = answer["result"]?["watch"]
            #expect(watch?.intValue != nil)
            let gathered = try Self.nextWatchEvent(client, watch: watch)
            #expect(gathered["event"] == .string("store.gatheringFinished"))
            #expect(Self.names(gathered) == ["carrots"])
            // Its own connection's save: bread now matches.
            let bread = try Self.id(of: "bread", in: client) ?? "none"
            _ = try client.result(#"{"id":4,"op":"store.save","store":"grocery","changes":[{"update":"items","id":"\#(bread)","values":{"quantity":2}}]}"#)
            let own = try Self.nextWatchEvent(client, watch: watch)
            #expect(own["event"] == .string("store.update"))
            #expect(own["added"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["bread"])
            // Another connection's save changes carrots.
            _ = try other.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"update":"items","id":"00000000000000000000000000000001","values":{"name":"organic carrots"}}]}"#)
            let changed = try Self.nextWatchEvent(client, watch: watch)
            #expect(changed["changed"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["organic carrots"])
            #expect(changed["added"] == .array([]) && changed["removed"] == .array([]))
            // Another device's segment: milk comes in with quantity 5.
            var phone = StoreReplica(schema: Self.schema, device: DeviceID("phone")!)
            let milk = try #require(try phone.commit([.insert(table: "items", id: RowID(high: 9, low: 9), values: ["name": .string("milk"), "quantity": .integer(5)])],
                                                      wall: DeviceStoreWall.now()))
            try Self.deliver(milk.segment.encoded(), device: "phone", sequence: 1, root: daemon.root)
            let remote = try Self.nextWatchEvent(client, watch: watch)
            #expect(remote["added"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["milk"])
            // A change that takes a row out of the result set: removed, as it was.
            _ = try other.result(#"{"id":3,"op":"store.save","store":"grocery","changes":[{"update":"items","id":"00000000000000000000000000000001","values":{"quantity":1}}]}"#)
            let removed = try Self.nextWatchEvent(client, watch: watch)
            #expect(removed["removed"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["organic carrots"])
            #expect(removed["removed"]?.arrayValue?.first?["quantity"] == .integer(3))
            // Live equals a fresh fetch.
            let fresh = try client.result(#"{"id":5,"op":"store.fetch","store":"grocery","table":"items","where":[{"column":"quantity","op":">=","value":2}],"sort":"name"}"#)
            #expect(Self.names(fresh) == ["bread", "milk"])
            let unwatched = try client.result(#"{"id":6,"op":"store.unwatch","watch":\#(watch?.intValue ?? 0)}"#)
            #expect(unwatched["unwatched"] == .bool(true))
            let again = try Self.errorOf(client, #"{"id":7,"op":"store.unwatch","watch":\#(watch?.intValue ?? 0)}"#)
            #expect(again?["code"] == .string("store.unknownWatch"))
            let badColumn = try Self.errorOf(client, #"{"id":8,"op":"store.watch","store":"grocery","table":"items","sort":"colour"}"#)
            #expect(badColumn?["code"] == .string("store.invalidChange"))
        }
    }

    static func id(of name: String, in client: RawClient) throws -> String? {
        let rows = try client.result(#"{"id":90,"op":"store.fetch","store":"grocery","table":"items","where":[{"column":"name","value":"\#(name)"}]}"#)
        return rows["rows"]?.arrayValue?.first?["id"]?.stringValue
    }

    @Test("A damaged segment shows as degraded (and is logged once) while other devices' segments go on")
    func damagedSegmentDegrades() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            _ = try Self.open(client)
            var phone = StoreReplica(schema: Self.schema, device: DeviceID("phone")!)
            try Self.deliver(try Self.segment(&phone, inserting: ["bread"], ids: [1]), device: "phone", sequence: 1, root: daemon.root)
            _ = try Self.nextChange(client)
            var damaged = try Self.segment(&phone, inserting: ["milk"], ids: [2])
            damaged[damaged.count / 2] ^= 0x40
            try Self.deliver(damaged, device: "phone", sequence: 2, root: daemon.root)
            try await daemon.waitForLog("store import degraded")
            let described = try client.result(#"{"id":2,"op":"store.describe","store":"grocery"}"#)
            let phoneState = described["devices"]?.arrayValue?.first { $0["device"]?.stringValue == "phone" }
            #expect(phoneState?["state"] == .string("degraded"))
            #expect(phoneState?["sequence"] == .integer(2))
            #expect(phoneState?["imported"] == .integer(1))
            #expect(phoneState?["code"] == .string("store.segmentChecksum"))
            // status shows it too: the device's state, when it was last imported, what waits; and a sentence in degraded.
            let status = try client.result(#"{"id":3,"op":"status"}"#)
            let store = status["stores"]?.arrayValue?.first
            #expect(store?["store"] == .string("grocery") && store?["schemaVersion"] == .integer(1))
            let phoneStatus = store?["devices"]?.arrayValue?.first { $0["device"]?.stringValue == "phone" }
            #expect(phoneStatus?["state"] == .string("degraded"))
            #expect(phoneStatus?["waiting"] == .integer(1))
            #expect(phoneStatus?["lastImport"]?.intValue != nil)
            let sentences = status["degraded"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(sentences.contains { $0.contains("store grocery of com.example.grocery: the import of device phone waits at a damaged segment") })
            // Another device goes on.
            var tablet = StoreReplica(schema: Self.schema, device: DeviceID("tablet")!)
            try Self.deliver(try Self.segment(&tablet, inserting: ["cheese"], ids: [3]), device: "tablet", sequence: 1, root: daemon.root)
            let change = try Self.nextChange(client)
            #expect(change["devices"] == .array([.string("tablet")]))
            #expect(daemon.log.components(separatedBy: "store import degraded").count == 2, "logged once")
        }
    }

    @Test("A subscriber that does not read stays bounded: past the row limit what it is owed becomes one store.changed saying all")
    func unreadSubscriberStaysBounded() async throws {
        try await withDaemon { daemon in
            let (idle, writer, _) = try Self.twoOpened(daemon)
            // 6,000 rows with a note of 1,000 bytes each: three fetches of them answer 20 MB, more
            // than the sockets and the connection's write buffer hold (8 MiB each way here).
            let note = String(repeating: "n", count: 1_000)
            for start in stride(from: 0, to: 6_000, by: 800) {
                let rows = (start..<min(start + 800, 6_000)).map { n in #"{"insert":"items","values":{"name":"big \#(n)","note":"\#(note)"}}"# }
                _ = try writer.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[\#(rows.joined(separator: ","))]}"#, within: 60)
            }
            // The subscriber asks for them and reads nothing: its connection is stuck behind that answer.
            for id in 97...99 { try idle.send(#"{"id":\#(id),"op":"store.fetch","store":"grocery","table":"items"}"#) }
            // 20,000 more rows meanwhile: more than the 10,000 a subscription keeps listed.
            let total = 20_000, batch = 4_000
            for start in stride(from: 0, to: total, by: batch) {
                let rows = (start..<start + batch).map { n in #"{"insert":"items","values":{"name":"row \#(n)"}}"# }.joined(separator: ",")
                _ = try writer.result(#"{"id":\#(start + 3),"op":"store.save","store":"grocery","changes":[\#(rows)]}"#, within: 60)
            }
            // The subscriber reads now: some listed events, then one that says all, and nothing after it.
            var events = 0, listed = 0, sawAll = false
            while !sawAll {
                let change = try Self.nextChange(idle, within: 30)
                events += 1
                if change["all"] == .bool(true) { sawAll = true } else { listed += change["inserted"]?.arrayValue?.count ?? 0 }
            }
            #expect(sawAll)
            #expect(sawAll, "\(events) events listed \(listed) rows before saying all")
        }
    }

    @Test("Rights per peer, as another uid: a group member reads but may not write until the container's directory lets it; a stranger may do neither (needs root to switch uid)")
    func otherUIDs() async throws {
        let member: UInt32 = 54321, team: UInt32 = 54322
        try await withDaemon(containers: [], arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
            let container = root + "/" + Self.container
            try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
            let config = "[[containers]]\nid = \"\(Self.container)\"\npath = \"\(container)\"\nowner = 0\ngroup = \(team)\n"
            try Data(config.utf8).write(to: URL(fileURLWithPath: (root as NSString).deletingLastPathComponent + "/ubiquityd.toml"))
        }) { daemon in
            chmod(daemon.directory, 0o755)
            let owner = try RawClient.greeted(socket: daemon.socket)
            _ = try Self.open(owner)
            _ = try owner.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"carrots"}}]}"#)
            let hello = #"{"id":0,"op":"hello","version":1}"#
            let save = #"{"id":3,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"stolen"}}]}"#
            func replies(_ uid: UInt32, groups: [UInt32], _ lines: [String]) throws -> [Int: JSONValue] {
                let all = try AuthorizationTests.exchange(as: uid, groups: groups, socket: daemon.socket, [hello] + lines)
                return Dictionary(all.compactMap { line in line["id"]?.intValue.map { ($0, line) } }, uniquingKeysWith: { first, _ in first })
            }
            // The member may read: open the existing store, fetch; not write: save, upgrade, create.
            let v2 = Self.schemaJSON(version: 2, extraItemColumns: #",{"name":"aisle","type":"string"}"#)
            let read = try replies(member, groups: [team], [
                #"{"id":1,"op":"store.open","store":"grocery","schema":\#(Self.schemaJSON())}"#,
                #"{"id":2,"op":"store.fetch","store":"grocery","table":"items"}"#, save,
                #"{"id":4,"op":"store.open","store":"grocery","schema":\#(v2)}"#,
                #"{"id":5,"op":"store.open","store":"pantry","schema":\#(Self.schemaJSON())}"#,
                #"{"id":6,"op":"store.forget","store":"grocery","device":"tablet"}"#,
            ])
            #expect(read[1]?["result"]?["opened"] == .string("opened"))
            #expect(Self.names(read[2]?["result"] ?? .null) == ["carrots"])
            for id in [3, 4, 5, 6] { #expect(read[id]?["error"]?["code"] == .string("store.forbidden"), "request \(id)") }
            #expect(read[3]?["error"]?["message"]?.stringValue?.contains("uid \(member) may read container") == true)
            // A stranger may not even read.
            let stranger = try replies(member, groups: [], [
                #"{"id":1,"op":"store.fetch","store":"grocery","table":"items"}"#,
                #"{"id":2,"op":"store.open","store":"grocery","schema":\#(Self.schemaJSON())}"#, save,
            ])
            for id in [1, 2, 3] { #expect(stranger[id]?["error"]?["code"] == .string("container.forbidden"), "request \(id)") }
            // Once the directory lets the group write, the member's save is acknowledged.
            let container = daemon.root + "/" + Self.container
            chown(container, 0, team)
            chmod(container, 0o775)
            let written = try replies(member, groups: [team], [save])
            #expect(written[3]?["result"]?["inserted"]?.arrayValue?.count == 1)
            let rows = try owner.result(#"{"id":4,"op":"store.fetch","store":"grocery","table":"items","sort":"name"}"#)
            #expect(Self.names(rows) == ["carrots", "stolen"])
        }
    }

    @Test("A daemon running as root gives the store's folders in a user's container to the container's owner, so the owner's sync engine can add other devices' logs (needs root)")
    func foldersBelongToTheContainersOwner() async throws {
        try await withDaemon(prepare: { root in
            for path in [root + "/" + Self.container, root + "/" + Self.container + "/Documents"] { chown(path, 54321, 54321) }
        }) { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            let opened = try Self.open(client)
            _ = try client.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"carrots"}}]}"#)
            let device = opened["device"]?.stringValue ?? "?"
            let base = daemon.root + "/" + Self.container + "/.ubiquity-stores"
            for folder in [base, base + "/grocery", base + "/grocery/logs", base + "/grocery/acks", base + "/grocery/logs/" + device,
                           base + "/grocery/snapshots", base + "/grocery/snapshots/" + device] {
                var info = stat()
                #expect(lstat(folder, &info) == 0, "\(folder)")
                #expect(info.st_uid == 54321, "\(folder) belongs to uid \(info.st_uid)")
            }
        }
    }
}

/// A folder removed when the value goes away.
final class TemporaryFolder {
    let path: String

    init() throws {
        var template = Array("/tmp/ubqstore-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

enum DeviceStoreWall {
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// The difference a live fetch sends: what a subscriber applies to the rows it holds.
struct LiveFetchDifferenceTests {
    static func row(_ id: String, _ name: String) -> JSONValue { .object(["id": .string(id), "name": .string(name)]) }

    @Test func addedChangedAndRemovedAreRelativeToTheHeldRows() {
        let old = [Self.row("a", "carrots"), Self.row("b", "bread"), Self.row("c", "milk")]
        let new = [Self.row("d", "cheese"), Self.row("b", "brown bread"), Self.row("c", "milk")]
        let difference = LiveFetchState.difference(from: old, to: new)
        #expect(difference.added == [Self.row("d", "cheese")])
        #expect(difference.changed == [Self.row("b", "brown bread")])
        #expect(difference.removed == [Self.row("a", "carrots")])
        let same = LiveFetchState.difference(from: new, to: new)
        #expect(same.added.isEmpty && same.changed.isEmpty && same.removed.isEmpty)
    }
}
