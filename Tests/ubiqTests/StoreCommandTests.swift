import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityTesting

/// `ubiq store` against the real daemon: a store an app opened with its schema, then described,
/// saved to, fetched from and shown in status by the CLI.
@Suite(.serialized, .ownThreads) struct StoreCommandTests {
    static let schema = #"{"version":1,"tables":[{"name":"items","columns":[{"name":"name","type":"string","nullable":false},{"name":"quantity","type":"integer"}]},{"name":"tags","columns":[{"name":"name","type":"string","nullable":false}],"uniqueBy":["name"]}],"relationships":[{"name":"tags","from":"items","to":"tags","inverse":"items"}]}"#

    @Test func describeSaveFetchAndStatus() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let app = try RawClient.greeted(socket: daemon.socket)
        _ = try app.result(#"{"id":1,"op":"store.open","store":"grocery","schema":\#(Self.schema)}"#)

        let described = try ubiq.run(["store", "describe", "grocery"] + s)
        #expect(described.status == 0)
        #expect(described.stdout.contains("store grocery of com.example.grocery, schema version 1, deletes lose"))
        #expect(described.stdout.contains("items  name string not null, quantity integer"))
        #expect(described.stdout.contains("tags   items.tags <-> tags.items"))

        let saved = try ubiq.run(["store", "save", "grocery", #"[{"insert":"items","id":"00000000000000000000000000000001","values":{"name":"carrots","quantity":3}},{"insert":"items","values":{"name":"bread","quantity":1}}]"#] + s)
        #expect(saved.status == 0)
        #expect(saved.stdout.split(separator: "\n").first == "00000000000000000000000000000001")
        #expect(saved.stdout.split(separator: "\n").count == 2)

        let fetched = try ubiq.run(["store", "fetch", "grocery", "items", "--where", "quantity >= 2"] + s)
        #expect(fetched.stdout == "00000000000000000000000000000001  name=carrots  quantity=3\n")
        let json = try ubiq.run(["store", "fetch", "grocery", "items", "--sort", "name", "--json"] + s)
        let rows = try json.stdout.split(separator: "\n").map { try JSONLine.decode(Array($0.utf8)) }
        #expect(rows.compactMap { $0["name"]?.stringValue } == ["bread", "carrots"])

        let status = try ubiq.run(["store", "status"] + s)
        #expect(status.stdout.contains("grocery of com.example.grocery (schema version 1)"))
        #expect(status.stdout.contains("current  imported 1"))

        // Bad input: a clear message and the documented status.
        let notJSON = try ubiq.run(["store", "save", "grocery", "[{"] + s)
        #expect(notJSON.status == 2 && notJSON.stderr.contains("not a store.save transaction"))
        let badCondition = try ubiq.run(["store", "fetch", "grocery", "items", "--where", "quantity"] + s)
        #expect(badCondition.status == 2 && badCondition.stderr.contains("is not COLUMN OP VALUE"))
        let unknownColumn = try ubiq.run(["store", "fetch", "grocery", "items", "--where", "quantty>1"] + s)
        #expect(unknownColumn.status == 1 && unknownColumn.stderr.contains("did you mean 'quantity'?"))
        let unknownStore = try ubiq.run(["store", "describe", "pantry"] + s)
        #expect(unknownStore.status == 1 && unknownStore.stderr.contains("[store.unknown]"))
    }

    /// With `floor_after_s = 0` a delete shrinks its row at the next import pass; the status line
    /// says so.
    @Test func statusCountsRowsShrunkToFloors() throws {
        let daemon = try TestDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
            let config = "[[roots]]\npath = \"\(root)\"\n\n[stores]\nfloor_after_s = 0\n"
            try Data(config.utf8).write(to: URL(fileURLWithPath: (root as NSString).deletingLastPathComponent + "/ubiquityd.toml"))
        })
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let app = try RawClient.greeted(socket: daemon.socket)
        _ = try app.result(#"{"id":1,"op":"store.open","store":"grocery","schema":\#(Self.schema)}"#)
        #expect(try !ubiq.run(["store", "status"] + s).stdout.contains("since opened"), "nothing to count yet")
        _ = try app.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"insert":"items","id":"00000000000000000000000000000001","values":{"name":"bread"}}]}"#)
        _ = try app.result(#"{"id":3,"op":"store.save","store":"grocery","changes":[{"delete":"items","id":"00000000000000000000000000000001"}]}"#)
        try daemon.waitForLog("store rows shrunk to floors")
        let status = try ubiq.run(["store", "status"] + s)
        #expect(status.stdout.contains("  since opened: 1 row shrunk to floors, 0 repairs written\n"), "\(status.stdout)")
        let json = try JSONLine.decode(Array(try ubiq.run(["store", "status", "--json"] + s).stdout.utf8))
        #expect(json.arrayValue?.first?["floored"] == .integer(1) && json.arrayValue?.first?["repairs"] == .integer(0))
    }

    @Test func forgetADevice() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let app = try RawClient.greeted(socket: daemon.socket)
        let own = try #require(try app.result(#"{"id":1,"op":"store.open","store":"grocery","schema":\#(Self.schema)}"#)["device"]?.stringValue)
        // The phone is known by its acknowledgement alone (it imported nothing of ours).
        try FS.write(daemon.root + "/com.example.grocery/.ubiquity-stores/grocery/acks/phone", "{}\n")

        let forgotten = try ubiq.run(["store", "forget", "grocery", "phone"] + s)
        #expect(forgotten.status == 0, "\(forgotten.stderr)")
        #expect(forgotten.stdout == "store grocery: stopped waiting for device phone; removed 0 own segments\n")
        let json = try ubiq.run(["store", "forget", "grocery", "phone", "--json"] + s)
        let answer = try JSONLine.decode(Array(json.stdout.utf8))
        #expect(answer["forgotten"] == .bool(true) && answer["device"] == .string("phone") && answer["waitingFor"] == .array([]))
        let status = try ubiq.run(["store", "status"] + s)
        #expect(status.stdout.contains("device phone  current  imported 0, forgotten"), "\(status.stdout)")

        let unknown = try ubiq.run(["store", "forget", "grocery", "tablet"] + s)
        #expect(unknown.status == 1 && unknown.stderr.contains("[store.unknownDevice]") && unknown.stderr.contains("the other devices it knows: phone"))
        let itself = try ubiq.run(["store", "forget", "grocery", own] + s)
        #expect(itself.status == 1 && itself.stderr.contains("[store.ownDevice]"))
    }
}
