import Foundation
import Testing
import UbiquityJSON
import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore
import UbiquityTesting

/// UbiquityKit's PersistentStore against the real daemon on a real socket: contexts saved as one
/// transaction, typed rows fetched, live fetches, and import notifications from other
/// connections and other devices' segments (delivered as a sync engine does).
@Suite("UbiquityKit PersistentStore", .serialized, .ownThreads)
struct PersistentStoreKitTests {
    static let schema = StoreDaemonTests.schema

    static func open(_ daemon: InProcessDaemon) async throws -> PersistentStore {
        try await PersistentStore.open("grocery", schema: schema, connection: try await UbiquityConnection.connect(to: daemon.socket))
    }

    /// The next element of `iterator` within a deadline.
    static func next<I: AsyncIteratorProtocol & SendableMetatype>(_ iterator: inout I, within seconds: Double = 15, _ what: String) async throws -> I.Element
        where I.Element: Sendable {
        let box = IteratorBox(iterator)
        let element = try await firstWithin(seconds) { try await box.next() } ?? nil
        iterator = box.iterator
        guard let element else { throw TestDaemonError("no \(what) within \(seconds) s") }
        return element
    }

    @Test("A context's inserts, relates and updates save as one transaction; fetch returns typed rows by conditions, sort and limit")
    func contextSaveAndFetch() async throws {
        try await withDaemon { daemon in
            let store = try await Self.open(daemon)
            #expect(store.opened == "created" && store.container == "com.example.grocery" && store.name == "grocery")
            let context = store.newContext()
            let carrots = try context.insert(into: "items", ["name": .string("carrots"), "quantity": .integer(3), "created": .date(1_767_225_600_000)])
            let bread = try context.insert(into: "items", ["name": .string("bread"), "quantity": .integer(1)])
            try context.insert(into: "items", ["name": .string("cheese")])
            let mall = try context.insert(into: "tags", ["name": .string("  Mall ")])
            #expect(mall == "98471ebd5834f35ea8bba0281d3c03c2", "a tag's id is derived from its folded name, as the daemon derives it")
            context.relate("tags", from: carrots, to: mall)
            #expect(context.hasChanges)
            let saved = try #require(try await context.save())
            #expect(saved.inserted == [carrots, bread, saved.inserted[2], mall])
            #expect(!context.hasChanges)
            #expect(try await context.save() == nil, "nothing to save sends nothing")

            var request = StoreFetchRequest(table: "items", sortDescriptors: [StoreSortDescriptor(key: "name")])
            let all = try await store.fetch(request)
            #expect(all.map { $0.string("name") } == ["bread", "carrots", "cheese"])
            let first = try #require(all.first { $0.id == carrots })
            #expect(first.integer("quantity") == 3 && first.date("created") == Date(timeIntervalSince1970: 1_767_225_600))
            #expect(first["note"] == .null)
            request.conditions = [StoreCondition("quantity", .greaterOrEqual, .integer(1))]
            request.sortDescriptors = [StoreSortDescriptor(key: "quantity", ascending: false)]
            #expect(try await store.fetch(request).map(\.id) == [carrots, bread])
            request.fetchLimit = 1
            #expect(try await store.fetch(request).map(\.id) == [carrots])
            #expect(try await store.fetch(StoreFetchRequest(table: "tags")).map { $0.string("name") } == ["  Mall "])

            // A change that does not fit: nothing is saved and the changes stay until rolled back.
            context.update("items", id: bread, ["quantity": .integer(2)])
            context.update("items", id: bread, ["quantty": .integer(2)])
            await #expect(throws: ProtocolError.self) { try await context.save() }
            #expect(context.pendingChanges.count == 2)
            #expect(try await store.fetch(StoreFetchRequest(table: "items", conditions: [StoreCondition("id", .equal, .string(bread))])).first?.integer("quantity") == 1)
            context.rollback()
            #expect(!context.hasChanges)
            context.delete(from: "items", id: bread)
            context.unrelate("tags", from: carrots, to: mall)
            try await context.save()
            #expect(try await store.fetch(StoreFetchRequest(table: "items")).count == 2)
            do {
                _ = try await store.fetch(StoreFetchRequest(table: "item"))
                Issue.record("an unknown table was fetched")
            } catch let error as ProtocolError {
                #expect(error.message.contains("there is no table 'item'"))
            }
        }
    }

    @Test("Rows carry their related ids from either end; a predicate narrows the fetch; a live fetch sees a relate as a change")
    func relatedAndPredicate() async throws {
        try await withDaemon { daemon in
            let store = try await Self.open(daemon)
            let context = store.newContext()
            let carrots = try context.insert(into: "items", ["name": .string("carrots")])
            let cheese = try context.insert(into: "items", ["name": .string("cheese")])
            let mall = try context.insert(into: "tags", ["name": .string("mall")])
            let grocer = try context.insert(into: "tags", ["name": .string("green grocer")])
            context.relate("tags", from: carrots, to: mall)
            context.relate("tags", from: carrots, to: grocer)
            context.relate("tags", from: cheese, to: mall)
            try await context.save()

            let items = try await store.fetch(StoreFetchRequest(table: "items", sortDescriptors: [.init(key: "name")], related: ["tags"]))
            #expect(items.map { $0.related["tags"] ?? [] } == [[mall, grocer].sorted(), [mall]])
            let tags = try await store.fetch(StoreFetchRequest(table: "tags", conditions: [StoreCondition("name", .equal, .string("mall"))],
                                                               related: ["items"]))
            #expect(tags.first?.related["items"] == [carrots, cheese].sorted())
            let car = try await store.fetch(StoreFetchRequest(table: "items", predicate: "name BEGINSWITH 'car'"))
            #expect(car.map(\.id) == [carrots])
            await #expect(throws: ProtocolError.self) { try await store.fetch(StoreFetchRequest(table: "items", predicate: "name BEGINSWITH")) }

            let live = try await store.fetchedResults(StoreFetchRequest(table: "items", related: ["tags"]))
            var snapshots = live.makeAsyncIterator()
            _ = try await Self.next(&snapshots, "the gathered rows")
            let other = try await Self.open(daemon)
            try await other.save([.unrelate(relationship: "tags", from: cheese, to: mall)])
            let update = try await Self.next(&snapshots, "the unrelate")
            #expect(update.changed.map(\.id) == [cheese] && update.changed.first?.related["tags"] == [])
            await live.stop()
        }
    }

    @Test("Another connection's saves and another device's segment arrive as import notifications; the store's own saves do not")
    func importNotifications() async throws {
        try await withDaemon { daemon in
            let mine = try await Self.open(daemon)
            let theirs = try await Self.open(daemon)
            var notes = mine.importNotifications().makeAsyncIterator()
            try await mine.save([.insert(table: "items", id: "00000000000000000000000000000001", values: ["name": .string("own")])])
            let theirContext = theirs.newContext()
            let milk = try theirContext.insert(into: "items", ["name": .string("milk")])
            try await theirContext.save()
            let first = try await Self.next(&notes, "notification of the other connection's save")
            #expect(first.inserted == [RowRef(table: "items", id: try #require(RowID(milk)))], "the store's own save is not reported")
            #expect(first.devices == [mine.device] && !first.isAll)
            theirContext.update("items", id: milk, ["quantity": .integer(2)])
            try await theirContext.save()
            let second = try await Self.next(&notes, "notification of the update")
            #expect(second.updated == [.init(row: RowRef(table: "items", id: try #require(RowID(milk))), columns: ["quantity"])])

            var phone = StoreReplica(schema: Self.schema, device: DeviceID("phone")!)
            try StoreDaemonTests.deliver(try StoreDaemonTests.segment(&phone, inserting: ["bread", "eggs"], ids: [1, 2]), device: "phone",
                                         sequence: 1, root: daemon.root)
            let imported = try await Self.next(&notes, "notification of the phone's segment")
            #expect(imported.devices == ["phone"])
            #expect(imported.rows(of: "items").inserted == [RowID(high: 7, low: 1).description, RowID(high: 7, low: 2).description])
            #expect(try await mine.fetch(StoreFetchRequest(table: "items")).count == 4)

            mine.close()
            #expect(await notes.next() == nil, "closing ends the notifications")
        }
    }

    @Test("A live fetch gives the rows, then snapshots with what was added, changed and removed; its rows are what a fetch returns")
    func liveFetch() async throws {
        try await withDaemon { daemon in
            let store = try await Self.open(daemon)
            let other = try await Self.open(daemon)
            try await store.save([
                .insert(table: "items", id: "00000000000000000000000000000001", values: ["name": .string("carrots"), "quantity": .integer(3)]),
                .insert(table: "items", id: "00000000000000000000000000000002", values: ["name": .string("bread"), "quantity": .integer(1)]),
            ])
            let request = StoreFetchRequest(table: "items", conditions: [StoreCondition("quantity", .greaterOrEqual, .integer(2))],
                                            sortDescriptors: [StoreSortDescriptor(key: "name", ascending: false)])
            let live = try await store.fetchedResults(request)
            var snapshots = live.makeAsyncIterator()
            let gathered = try await Self.next(&snapshots, "the gathered rows")
            #expect(gathered.isInitial && gathered.rows.map { $0.string("name") } == ["carrots"])

            // Another connection's save: bread enters, carrots leaves.
            try await other.save([.update(table: "items", id: "00000000000000000000000000000002", values: ["quantity": .integer(2)]),
                                  .update(table: "items", id: "00000000000000000000000000000001", values: ["quantity": .integer(1)])])
            let update = try await Self.next(&snapshots, "the update")
            #expect(update.added.map { $0.string("name") } == ["bread"] && update.removed.map { $0.string("name") } == ["carrots"])
            #expect(update.removed.first?.integer("quantity") == 3, "a removed row is as it was")
            // This store's own save: a new row, and bread changed.
            try await store.save([.insert(table: "items", id: "00000000000000000000000000000003", values: ["name": .string("apples"), "quantity": .integer(5)]),
                                  .update(table: "items", id: "00000000000000000000000000000002", values: ["quantity": .integer(4)])])
            let own = try await Self.next(&snapshots, "the update of the own save")
            #expect(own.added.map { $0.string("name") } == ["apples"] && own.changed.map { $0.integer("quantity") } == [4])
            #expect(own.rows.map { $0.string("name") } == ["bread", "apples"], "sorted by name, descending")
            #expect(live.rows == (try await store.fetch(request)))

            await live.stop()
            #expect(try await snapshots.next() == nil, "stopping ends the snapshots")
        }
    }

    @Test("A live fetch the daemon stops (its rows grew past maxAnswerBytes) ends iteration with the daemon's error")
    func liveFetchStoppedByTheDaemon() async throws {
        try await withDaemon { daemon in
            let store = try await Self.open(daemon)
            let live = try await store.fetchedResults(StoreFetchRequest(table: "items"))
            var snapshots = live.makeAsyncIterator()
            _ = try await Self.next(&snapshots, "the gathered rows")
            // 19 rows of 900,000 bytes: more than the 16 MiB a fetch may answer.
            let other = try await Self.open(daemon)
            let big = String(repeating: "x", count: 900_000)
            for _ in 0..<19 { try await other.save([.insert(table: "items", id: nil, values: ["name": .string(big)])]) }
            let box = IteratorBox(snapshots)
            let code = try await firstWithin(60) { () -> String? in
                do {
                    while try await box.next() != nil {}
                    return nil
                } catch let error as ProtocolError {
                    return error.code.rawValue
                }
            }
            #expect(code == "store.answerTooLarge")
        }
    }

    @Test("A consumer that never reads import notifications holds at most 256, the last saying any row may have changed")
    func unreadNotificationsAreBounded() async throws {
        try await withDaemon { daemon in
            let store = try await Self.open(daemon)
            let unread = store.importNotifications()
            // Another consumer reads as they come and counts them: the unread one was offered as many.
            let read = store.importNotifications()
            let saves = 400
            // (How many, and whether it fell behind itself: then it was told "any row" too.)
            let counter = Task(executorPreference: ThreadPerJobExecutor.shared) { () -> (count: Int, behind: Bool) in
                var count = 0, rows = 0
                for await note in read {
                    count += 1
                    rows += note.inserted.count
                    if note.isAll { return (count, true) }
                    if rows >= saves { return (count, false) }
                }
                return (count, false)
            }
            let writer = try RawClient.greeted(socket: daemon.socket)
            _ = try StoreDaemonTests.open(writer)
            for i in 0..<saves {
                _ = try writer.result(#"{"id":\#(i + 2),"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"n\#(i)"}}]}"#)
            }
            let offered = try await firstWithin(60) { await counter.value }
            let (told, behind) = try #require(offered)
            store.close()
            var kept: [StoreImportNotification] = []
            for await note in unread { kept.append(note) }
            #expect(kept.count <= PersistentStore.maxWaitingNotifications, "\(kept.count) notifications waited for a consumer that never read")
            if behind || told > PersistentStore.maxWaitingNotifications {
                #expect(kept.last?.isAll == true, "\(told) notifications for 256 places: the last kept must say any row may have changed")
            } else {
                #expect(kept.count == told && kept.reduce(0) { $0 + $1.inserted.count } == saves)
            }
        }
    }

    @Test("forget(device:) stops compaction waiting for a known device; an unknown one is the daemon's store.unknownDevice")
    func forgetADevice() async throws {
        try await withDaemon { daemon in
            let store = try await Self.open(daemon)
            var phone = StoreReplica(schema: Self.schema, device: DeviceID("phone")!)
            try StoreDaemonTests.deliver(try StoreDaemonTests.segment(&phone, inserting: ["bread"], ids: [1]), device: "phone", sequence: 1, root: daemon.root)
            var imports = store.importNotifications().makeAsyncIterator()
            _ = try await Self.next(&imports, "the phone's segment imported")
            let forgotten = try await store.forget(device: "phone")
            #expect(forgotten.device == "phone" && forgotten.removed == 0 && forgotten.waitingFor.isEmpty)
            await #expect { try await store.forget(device: "tablet") } throws: { ($0 as? ProtocolError)?.code.rawValue == "store.unknownDevice" }
        }
    }
}

/// Lets a test hand an iterator to a child task and get it back (the test awaits the task).
private final class IteratorBox<I: AsyncIteratorProtocol>: @unchecked Sendable {
    var iterator: I
    init(_ iterator: I) { self.iterator = iterator }
    func next() async throws -> I.Element? { try await iterator.next() }
}
