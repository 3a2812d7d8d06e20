import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityTesting

/// `ubiq store insert|update|delete|relate|unrelate` and `fetch --predicate --related` against the
/// real daemon: values typed by the store's schema, rows named by id or by key, and clear errors.
@Suite(.serialized, .ownThreads) struct StoreWriteCommandTests {
    static let schema = #"{"version":1,"tables":[{"name":"items","columns":[{"name":"name","type":"string","nullable":false},{"name":"quantity","type":"integer"},{"name":"price","type":"double"},{"name":"done","type":"bool"},{"name":"created","type":"date"},{"name":"photo","type":"data"},{"name":"extra","type":"json"}]},{"name":"tags","columns":[{"name":"name","type":"string","nullable":false}],"uniqueBy":["name"]}],"relationships":[{"name":"tags","from":"items","to":"tags","inverse":"items"}]}"#
    static let carrots = "00000000000000000000000000000001"
    static let mall = "98471ebd5834f35ea8bba0281d3c03c2"

    static func rows(_ output: String) throws -> [JSONValue] {
        try output.split(separator: "\n").map { try JSONLine.decode(Array($0.utf8)) }
    }

    @Test func insertUpdateRelateFetchDelete() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let app = try RawClient.greeted(socket: daemon.socket)
        _ = try app.result(#"{"id":1,"op":"store.open","store":"grocery","schema":\#(Self.schema)}"#)

        // Every type read from its text.
        let inserted = try ubiq.run(["store", "insert", "grocery", "items", "--id", Self.carrots, "name=carrots", "quantity=2", "price=1.5",
                                     "done=false", "created=2026-01-01T00:00:00.250Z", "photo=AAEC", #"extra={"aisle":3}"#] + s)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(inserted.stdout == Self.carrots + "\n")
        let bread = try ubiq.run(["store", "insert", "grocery", "items", "name=bread", "created=1767225600000"] + s)
        #expect(bread.status == 0 && bread.stdout.count == 33, "a random id: \(bread.stdout)")
        let breadID = String(bread.stdout.dropLast())
        let tag = try ubiq.run(["store", "insert", "grocery", "tags", "name=mall"] + s)
        #expect(tag.stdout == Self.mall + "\n", "a tag's id comes from its name")

        let fetched = try Self.rows(try ubiq.run(["store", "fetch", "grocery", "items", "--sort", "name", "--json"] + s).stdout)
        #expect(fetched.count == 2)
        let row = try #require(fetched.last)
        #expect(row["quantity"] == .integer(2) && row["price"] == .double(1.5) && row["done"] == .bool(false))
        #expect(row["created"] == .integer(1_767_225_600_250) && row["photo"] == .string("AAEC"))
        #expect(row["extra"] == .object(["aisle": .integer(3)]))
        #expect(fetched.first?["created"] == .integer(1_767_225_600_000))

        // Rows by id, tags by name.
        #expect(try ubiq.run(["store", "relate", "grocery", "tags", Self.carrots, "mall"] + s).status == 0)
        #expect(try ubiq.run(["store", "update", "grocery", "items", Self.carrots, "quantity=3", "--clear", "price"] + s).status == 0)
        let related = try ubiq.run(["store", "fetch", "grocery", "items", "--predicate", "name BEGINSWITH 'car' AND tags CONTAINS 'mall'",
                                    "--related", "tags"] + s)
        #expect(related.stdout.hasPrefix("\(Self.carrots)  created=1767225600250  done=false"), "\(related.stdout)")
        #expect(related.stdout.contains("quantity=3  tags=[\"\(Self.mall)\"]\n") && !related.stdout.contains("price="), "\(related.stdout)")
        let tags = try Self.rows(try ubiq.run(["store", "fetch", "grocery", "tags", "--related", "items", "--json"] + s).stdout)
        #expect(tags.first?["items"] == .array([.string(Self.carrots)]))
        #expect(try ubiq.run(["store", "unrelate", "grocery", "tags", Self.carrots, Self.mall] + s).status == 0)
        let none = try ubiq.run(["store", "fetch", "grocery", "items", "--predicate", "tags CONTAINS 'mall'"] + s)
        #expect(none.status == 0 && none.stdout.isEmpty)
        #expect(try ubiq.run(["store", "delete", "grocery", "items", breadID] + s).status == 0)
        #expect(try ubiq.run(["store", "delete", "grocery", "tags", "mall"] + s).status == 0)
        let left = try ubiq.run(["store", "fetch", "grocery", "items", "--json"] + s)
        #expect(try Self.rows(left.stdout).compactMap { $0["name"]?.stringValue } == ["carrots"])
        #expect(try ubiq.run(["store", "fetch", "grocery", "tags"] + s).stdout.isEmpty)
    }

    @Test func valuesThatDoNotFitTheSchemaAreRefusedBeforeAnythingIsSent() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let app = try RawClient.greeted(socket: daemon.socket)
        _ = try app.result(#"{"id":1,"op":"store.open","store":"grocery","schema":\#(Self.schema)}"#)
        let cases: [([String], String)] = [
            (["insert", "grocery", "items", "name=x", "quantity=two"], "'items.quantity' is an integer column: 'two' is not a whole number"),
            (["insert", "grocery", "items", "name=x", "price=cheap"], "'items.price' is a double column: 'cheap' is not a finite number"),
            (["insert", "grocery", "items", "name=x", "done=yes"], "'items.done' is a bool column: 'yes' is not true or false"),
            (["insert", "grocery", "items", "name=x", "created=tuesday"], "'items.created' is a date column: 'tuesday' is not a date"),
            (["insert", "grocery", "items", "name=x", "photo=***"], "'items.photo' is a data column: '***' is not base64"),
            (["insert", "grocery", "items", "name=x", "extra={"], "'items.extra' is a json column: '{' is not JSON"),
            (["insert", "grocery", "items", "nam=x"], "table 'items' has no column 'nam'; did you mean 'name'?"),
            (["insert", "grocery", "items", "name"], "'name' is not COLUMN=VALUE"),
            (["insert", "grocery", "items", "name=x", "name=y"], "column 'name' is given twice"),
            (["insert", "grocery", "item", "name=x"], "the store has no table 'item' (did you mean 'items'?)"),
            (["update", "grocery", "items", "carrots", "quantity=1"], "'carrots' is not a row id of 'items' (32 hex digits)"),
            (["update", "grocery", "items", Self.carrots], "nothing to change"),
            (["relate", "grocery", "tag", Self.carrots, "mall"], "the store has no relationship 'tag' (did you mean 'tags'?)"),
        ]
        for (arguments, message) in cases {
            let r = try ubiq.run(["store"] + arguments + s)
            #expect(r.status == 2, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        // Nothing was saved by any of them.
        #expect(try ubiq.run(["store", "fetch", "grocery", "items"] + s).stdout.isEmpty)
        // What only the daemon can tell: exit 1 with its code.
        let missing = try ubiq.run(["store", "update", "grocery", "items", Self.carrots, "quantity=1"] + s)
        #expect(missing.status == 1 && missing.stderr.contains("[store.invalidChange]"), "\(missing.stderr)")
        let predicate = try ubiq.run(["store", "fetch", "grocery", "items", "--predicate", "quantity > 'two'"] + s)
        #expect(predicate.status == 2 && predicate.stderr.contains("expected a number to compare with quantity"), "\(predicate.stderr)")
        #expect(predicate.stderr.contains("^"), "a caret under the place: \(predicate.stderr)")
        let end = try ubiq.run(["store", "fetch", "grocery", "items", "--related", "tag"] + s)
        #expect(end.status == 1 && end.stderr.contains("did you mean 'tags'?"), "\(end.stderr)")
    }

    /// `ubiq store watch` as a child process: the rows, then each change made by other processes.
    static func watch(_ arguments: [String], socket: String) throws -> (Process, lines: LineReader, ready: LineReader) {
        let out = Pipe(), err = Pipe()
        let process = Process()
        process.executableURL = ubiq.url
        process.arguments = ["store", "watch", "grocery", "items"] + arguments + ["--socket", socket]
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, LineReader(out.fileHandleForReading), LineReader(err.fileHandleForReading))
    }

    @Test func watchPrintsTheRowsThenEachChange() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let app = try RawClient.greeted(socket: daemon.socket)
        _ = try app.result(#"{"id":1,"op":"store.open","store":"grocery","schema":\#(Self.schema)}"#)
        #expect(try ubiq.run(["store", "insert", "grocery", "items", "--id", Self.carrots, "name=carrots", "quantity=2"] + s).status == 0)
        #expect(try ubiq.run(["store", "insert", "grocery", "tags", "name=mall"] + s).status == 0)

        let (process, lines, ready) = try Self.watch(["--predicate", "tags CONTAINS 'mall' OR quantity > 5", "--related", "tags", "--sort", "name"],
                                                     socket: daemon.socket)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(try #require(ready.next(within: 10)).contains("0 rows of items in store grocery of com.example.grocery; watching for changes"))
        // A relate brings carrots in; a change of it shows as changed; an unrelate takes it out.
        #expect(try ubiq.run(["store", "relate", "grocery", "tags", Self.carrots, "mall"] + s).status == 0)
        #expect(lines.next(within: 10) == "+ \(Self.carrots)  name=carrots  quantity=2  tags=[\"\(Self.mall)\"]")
        #expect(try ubiq.run(["store", "update", "grocery", "items", Self.carrots, "quantity=3"] + s).status == 0)
        #expect(lines.next(within: 10) == "~ \(Self.carrots)  name=carrots  quantity=3  tags=[\"\(Self.mall)\"]")
        #expect(try ubiq.run(["store", "unrelate", "grocery", "tags", Self.carrots, "mall"] + s).status == 0)
        #expect(lines.next(within: 10) == "- \(Self.carrots)  name=carrots  quantity=3  tags=[\"\(Self.mall)\"]")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        // With --json: the gathering, then one event per change.
        let (json, events, jsonReady) = try Self.watch(["--json"], socket: daemon.socket)
        defer { if json.isRunning { kill(json.processIdentifier, SIGKILL) } }
        let gathered = try JSONLine.decode(Array(try #require(events.next(within: 10)).utf8))
        #expect(gathered["event"] == .string("store.gatheringFinished") && gathered["count"] == .integer(1))
        #expect(gathered["rows"]?.arrayValue?.first?["name"] == .string("carrots"))
        #expect(jsonReady.next(within: 10)?.contains("watching for changes") == true)
        #expect(try ubiq.run(["store", "insert", "grocery", "items", "name=milk"] + s).status == 0)
        let update = try JSONLine.decode(Array(try #require(events.next(within: 10)).utf8))
        #expect(update["event"] == .string("store.update"))
        #expect(update["added"]?.arrayValue?.map { $0["name"] } == [.string("milk")])
        #expect(update["changed"] == .array([]) && update["removed"] == .array([]))
        kill(json.processIdentifier, SIGTERM)
        json.waitUntilExit()
        #expect(json.terminationStatus == 0)

        // What does not fit: the daemon's error, exit 1 or 2 as fetch.
        let bad = try ubiq.run(["store", "watch", "grocery", "items", "--predicate", "nam == 'x'"] + s)
        #expect(bad.status == 2 && bad.stderr.contains("did you mean 'name'?"), "\(bad.stderr)")
    }
}
