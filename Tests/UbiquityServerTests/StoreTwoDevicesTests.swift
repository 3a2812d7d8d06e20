import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting

/// Relational stores on two devices replicating one container through real Syncthing
/// (TwoDevices: two daemons, two Syncthing instances): changes made while the devices are apart
/// merge into one state on both, conflicts and delete contests are reported by both imports,
/// and a device on an older schema stops at the first newer segment until it is upgraded
/// (docs/stores.md, "The merge rules" and "Import exactly once"). Needs root (unshare).
@Suite(.serialized, .ownThreads) struct StoreTwoDevicesTests {
    static let carrots = "00000000000000000000000000000001"
    static let mall = "98471ebd5834f35ea8bba0281d3c03c2"

    /// Grocery's schema; version 2 adds the nullable column `items.aisle` and the table `shops`.
    static func schema(version: Int = 1, deletes: String = "lose") -> String {
        let aisle = version >= 2 ? #",{"name":"aisle","type":"string"}"# : ""
        let shops = version >= 2 ? #",{"name":"shops","columns":[{"name":"name","type":"string","nullable":false}]}"# : ""
        return #"{"version":\#(version),"deletes":"\#(deletes)","tables":[{"name":"items","columns":[{"name":"name","type":"string","nullable":false},{"name":"quantity","type":"integer"},{"name":"note","type":"string"}\#(aisle)]},{"name":"tags","columns":[{"name":"name","type":"string","nullable":false}],"uniqueBy":["name"]}\#(shops)],"relationships":[{"name":"tags","from":"items","to":"tags","inverse":"items"}]}"#
    }

    static func url(_ store: String, _ table: String, _ id: String) -> JSONValue {
        .string("ubiquity-store://\(TwoDevices.containerID)/\(store)/\(table)/\(id)")
    }

    /// A's Syncthing stops talking to B, `body` changes each side, both scan, then they meet again.
    static func apart(_ devices: TwoDevices, _ body: () throws -> Void) throws {
        try devices.a.syncthing.call("POST", "/rest/system/pause?device=\(devices.b.deviceID)")
        try body()
        for device in [devices.a, devices.b] { try device.syncthing.call("POST", "/rest/db/scan?folder=\(TwoDevices.containerID)") }
        try devices.a.syncthing.call("POST", "/rest/system/resume?device=\(devices.b.deviceID)")
    }

    /// Whether some event has `row` among its `updated` rows with `column` among the columns.
    static func updated(_ events: [JSONValue], _ row: JSONValue, _ column: String) -> Bool {
        events.contains { event in
            event["updated"]?.arrayValue?.contains { $0["row"] == row && $0["columns"]?.arrayValue?.contains(.string(column)) == true } == true
        }
    }

    static func all(_ field: String, of events: [JSONValue]) -> [JSONValue] { events.flatMap { $0[field]?.arrayValue ?? [] } }

    /// Two devices both with `store` open (and `others` too), carrots saved on A and imported by B.
    static func started(_ stores: [String: String]) async throws -> (TwoDevices, StorePeer, StorePeer) {
        let devices = try await TwoDevices.start()
        do {
            let a = try StorePeer(devices.a), b = try StorePeer(devices.b)
            for (store, schema) in stores.sorted(by: { $0.key < $1.key }) {
                try a.open(store, schema: schema)
                try b.open(store, schema: schema)
                try a.save(store, #"{"insert":"items","id":"\#(carrots)","values":{"name":"carrots","quantity":1}}"#)
                _ = try b.changes(of: store, from: a.device) { all("inserted", of: $0).contains(url(store, "items", carrots)) }
            }
            return (devices, a, b)
        } catch {
            devices.stop()
            throw error
        }
    }

    @Test("While apart, A renames an item and B tags it: both changes on both; both rename it: one winner on both, the loser reported by both imports")
    func renameAndTagWhileApartThenBothRename() async throws {
        let (devices, a, b) = try await Self.started(["grocery": Self.schema()])
        defer { devices.stop() }
        let carrots = Self.url("grocery", "items", Self.carrots)

        try Self.apart(devices) {
            try a.save("grocery", #"{"update":"items","id":"\#(Self.carrots)","values":{"name":"organic carrots"}}"#)
            try b.save("grocery", #"{"insert":"tags","values":{"name":"mall"}}"#,
                       #"{"relate":"tags","from":"\#(Self.carrots)","to":"\#(Self.mall)"}"#)
        }
        let onA = try a.changes(of: "grocery", from: b.device) { Self.updated($0, carrots, "tags") }
        let onB = try b.changes(of: "grocery", from: a.device) { Self.updated($0, carrots, "name") }
        #expect(Self.all("inserted", of: onA).contains(Self.url("grocery", "tags", Self.mall)), "A imports B's new tag: \(onA)")
        for events in [onA, onB] {
            #expect(Self.all("conflicts", of: events).isEmpty && Self.all("contests", of: events).isEmpty, "different columns: \(events)")
        }
        for peer in [a, b] {
            let row = try peer.rows("grocery", "items", related: ["tags"])[Self.carrots]
            #expect(row?["name"] == .string("organic carrots"), "on \(peer.name): \(String(describing: row))")
            #expect(row?["tags"] == .array([.string(Self.mall)]), "on \(peer.name): \(String(describing: row))")
        }

        try Self.apart(devices) {
            try a.save("grocery", #"{"update":"items","id":"\#(Self.carrots)","values":{"name":"carottes"}}"#)
            try b.save("grocery", #"{"update":"items","id":"\#(Self.carrots)","values":{"name":"Möhren"}}"#)
        }
        let conflictsOnA = Self.all("conflicts", of: try a.changes(of: "grocery", from: b.device) { !Self.all("conflicts", of: $0).isEmpty })
        let conflictsOnB = Self.all("conflicts", of: try b.changes(of: "grocery", from: a.device) { !Self.all("conflicts", of: $0).isEmpty })
        #expect(conflictsOnA == conflictsOnB, "both imports settle the same conflict:\nA: \(conflictsOnA)\nB: \(conflictsOnB)")
        let conflict = try #require(conflictsOnA.count == 1 ? conflictsOnA.first : nil, "one conflict: \(conflictsOnA)")
        #expect(conflict["row"] == carrots && conflict["column"] == .string("name"))
        let names: [String: String] = [a.device: "carottes", b.device: "Möhren"]
        let winner = try #require(conflict["winnerDevice"]?.stringValue), loser = try #require(conflict["loserDevice"]?.stringValue)
        #expect(Set([winner, loser]) == [a.device, b.device], "\(conflict)")
        #expect(conflict["winner"] == names[winner].map { .string($0) } && conflict["loser"] == names[loser].map { .string($0) }, "\(conflict)")
        for peer in [a, b] {
            let row = try peer.rows("grocery", "items", related: ["tags"])[Self.carrots]
            #expect(row?["name"] == conflict["winner"], "on \(peer.name): the winner \(conflict["winner"].map(JSONLine.encode) ?? "-"): \(String(describing: row))")
            #expect(row?["tags"] == .array([.string(Self.mall)]), "on \(peer.name): the tag stays")
        }
    }

    @Test("A deletes a row while B edits it: the edit survives on both (deletes = \"lose\"); in a store with deletes = \"win\" the delete wins on both; both imports report the contest")
    func deleteAgainstEditUnderBothPolicies() async throws {
        let (devices, a, b) = try await Self.started(["grocery": Self.schema(), "pantry": Self.schema(deletes: "win")])
        defer { devices.stop() }

        try Self.apart(devices) {
            for store in ["grocery", "pantry"] {
                try a.save(store, #"{"delete":"items","id":"\#(Self.carrots)"}"#)
                try b.save(store, #"{"update":"items","id":"\#(Self.carrots)","values":{"quantity":5}}"#)
            }
        }
        for (store, kept) in [("grocery", true), ("pantry", false)] {
            let row = Self.url(store, "items", Self.carrots)
            let onA = try a.changes(of: store, from: b.device) { !Self.all("contests", of: $0).isEmpty }
            let onB = try b.changes(of: store, from: a.device) { !Self.all("contests", of: $0).isEmpty }
            let contest: JSONValue = .object(["row": row, "deletedBy": .array([.string(a.device)]), "editedBy": .array([.string(b.device)]),
                                              "kept": .bool(kept)])
            #expect(Self.all("contests", of: onA) == [contest], "\(store) on A: \(onA)")
            #expect(Self.all("contests", of: onB) == [contest], "\(store) on B: \(onB)")
            if kept {
                // A had deleted it: the edit brings the whole row back. B had it all along.
                #expect(Self.all("inserted", of: onA) == [row], "\(store) on A: \(onA)")
                #expect(Self.all("deleted", of: onB).isEmpty && Self.all("inserted", of: onB).isEmpty, "\(store) on B: \(onB)")
            } else {
                #expect(Self.all("inserted", of: onA).isEmpty, "\(store) on A: \(onA)")
                #expect(Self.all("deleted", of: onB) == [row], "\(store) on B: \(onB)")
            }
            for peer in [a, b] {
                let rows = try peer.rows(store, "items")
                if kept {
                    let carrots = rows[Self.carrots]
                    #expect(carrots?["name"] == .string("carrots") && carrots?["quantity"] == .integer(5), "\(store) on \(peer.name): \(rows)")
                } else {
                    #expect(rows.isEmpty, "\(store) on \(peer.name): \(rows)")
                }
            }
        }
    }

    @Test("A device on schema version 1 stops importing at the other's first version-2 segment and says it needs an upgrade; upgraded, it imports everything")
    func olderSchemaWaitsForTheUpgrade() async throws {
        let (devices, a, b) = try await Self.started(["grocery": Self.schema()])
        defer { devices.stop() }
        let milk = "00000000000000000000000000000002", bread = "00000000000000000000000000000003", cheese = "00000000000000000000000000000004"

        // A upgrades and writes two segments with version 2, the first using the new column and table.
        #expect(try a.open("grocery", schema: Self.schema(version: 2))["opened"] == .string("upgraded"))
        try a.save("grocery", #"{"insert":"items","id":"\#(milk)","values":{"name":"milk","aisle":"dairy"}}"#,
                   #"{"insert":"shops","id":"\#(milk)","values":{"name":"corner shop"}}"#)
        try a.save("grocery", #"{"insert":"items","id":"\#(bread)","values":{"name":"bread"}}"#)
        try devices.b.daemon.waitForLog("store import needs upgrade", within: 60)
        try devices.waitUntilInSync()
        let waiting = try b.syncState("grocery", of: a.device)
        #expect(waiting?["state"] == .string("needsUpgrade") && waiting?["sequence"] == .integer(2)
                && waiting?["schemaVersion"] == .integer(2) && waiting?["imported"] == .integer(1), "\(String(describing: waiting))")
        let status = try b.result(#"{"id":5,"op":"status"}"#)
        let store = status["stores"]?.arrayValue?.first { $0["store"] == .string("grocery") }
        #expect(store?["schemaVersion"] == .integer(1))
        let inStatus = store?["devices"]?.arrayValue?.first { $0["device"]?.stringValue == a.device }
        #expect(inStatus?["state"] == .string("needsUpgrade") && inStatus?["waiting"] == .integer(2), "\(String(describing: inStatus))")
        let sentences = status["degraded"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(sentences.contains { $0.contains("device \(a.device) writes with schema version 2") && $0.contains("segment 2") }, "\(sentences)")
        #expect(Set(try b.rows("grocery", "items").keys) == [Self.carrots], "nothing past the first version-2 segment")

        // B still writes its own segments with version 1, and A imports them.
        try b.save("grocery", #"{"insert":"items","id":"\#(cheese)","values":{"name":"cheese"}}"#)
        _ = try a.changes(of: "grocery", from: b.device) { Self.all("inserted", of: $0).contains(Self.url("grocery", "items", cheese)) }

        // Upgraded, B imports everything that waited, and its subscribers are told to read again.
        #expect(try b.open("grocery", schema: Self.schema(version: 2))["opened"] == .string("upgraded"))
        _ = try b.changes(of: "grocery", from: nil) { $0.contains { $0["all"] == .bool(true) } }
        try devices.b.daemon.waitForLog("store import resumed", within: 30)
        let resumed = try b.syncState("grocery", of: a.device)
        #expect(resumed?["state"] == .string("current") && resumed?["imported"] == .integer(3), "\(String(describing: resumed))")
        for peer in [a, b] {
            let rows = try peer.rows("grocery", "items")
            #expect(Set(rows.keys) == [Self.carrots, milk, bread, cheese], "on \(peer.name): \(rows)")
            #expect(rows[milk]?["aisle"] == .string("dairy") && rows[bread]?["aisle"] == nil, "on \(peer.name): \(rows)")
            let shops = try peer.rows("grocery", "shops")
            #expect(shops.count == 1 && shops[milk]?["name"] == .string("corner shop"), "on \(peer.name): \(shops)")
        }
        let degraded = try b.result(#"{"id":6,"op":"status"}"#)["degraded"]?.arrayValue ?? []
        #expect(!degraded.contains { $0.stringValue?.contains("grocery") == true }, "\(degraded)")
    }

    @Test("Compaction over Syncthing: A's 50th save writes a snapshot; once B has imported and acknowledged A's segments, A removes them and the removal reaches B; both keep every row")
    func compactionRemovesAcknowledgedSegmentsOnBoth() async throws {
        let (devices, a, b) = try await Self.started(["grocery": Self.schema()])
        defer { devices.stop() }
        var last = ""
        for n in 2...50 {
            let saved = try a.save("grocery", #"{"insert":"items","values":{"name":"item \#(n)"}}"#)
            last = saved["inserted"]?.arrayValue?.first?.stringValue ?? ""
            #expect(saved["segment"] == .integer(Int64(n)))
        }
        let own = "/.ubiquity-stores/grocery/logs/" + a.device, snapshots = "/.ubiquity-stores/grocery/snapshots/" + a.device
        #expect(try FS.names(devices.a.container + snapshots) == ["50"])
        // B imports A's 50 segments and acknowledges them; the acknowledgement reaches A, whose
        // import pass removes its segments; Syncthing removes them from B's container too.
        _ = try b.changes(of: "grocery", from: a.device) { Self.all("inserted", of: $0).contains(Self.url("grocery", "items", last)) }
        try FS.waitForNames(in: devices.a.container + own, within: 60) { $0.allSatisfy { Int($0) == nil } }
        try devices.waitUntilInSync()
        #expect(try FS.names(devices.b.container + own).allSatisfy { Int($0) == nil }, "the removal reached B")
        #expect(try FS.names(devices.b.container + snapshots) == ["50"], "the snapshot reached B")
        let onA = try a.rows("grocery", "items"), onB = try b.rows("grocery", "items")
        #expect(onA.count == 50 && Set(onA.keys) == Set(onB.keys))
        // A goes on writing after compaction, and B imports it.
        let saved = try a.save("grocery", #"{"insert":"items","values":{"name":"after"}}"#)
        #expect(saved["segment"] == .integer(51))
        let after = saved["inserted"]?.arrayValue?.first?.stringValue ?? ""
        _ = try b.changes(of: "grocery", from: a.device) { Self.all("inserted", of: $0).contains(Self.url("grocery", "items", after)) }
    }
}
