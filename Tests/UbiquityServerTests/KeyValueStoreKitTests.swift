import Foundation
import Testing
import UbiquityKeyValue
import UbiquityKit
import UbiquityProtocol
import UbiquityTesting

/// UbiquityKit's KeyValueStore against the real daemon: NSUbiquitousKeyValueStore's shape.
@Suite("UbiquityKit KeyValueStore", .serialized, .ownThreads)
struct KeyValueStoreKitTests {
    /// The next external change within a deadline.
    func next(_ iterator: inout AsyncStream<KeyValueStoreChange>.Iterator, within seconds: Double = 10) async throws -> KeyValueStoreChange {
        let box = UncheckedIterator(iterator)
        let change = try await firstWithin(seconds) { await box.next() } ?? nil
        iterator = box.iterator
        guard let change else { throw TestDaemonError("no external change within \(seconds) s") }
        return change
    }

    @Test("Typed setters and getters round-trip; absent keys read as Apple's defaults")
    func typedValues() async throws {
        try await withDaemon { daemon in
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let store = try await KeyValueStore.open(connection: connection)
            #expect(store.container == "com.example.grocery")
            try await store.set("name", forKey: "sortOrder")
            try await store.set(Int64.max, forKey: "big")
            try await store.set(2.5, forKey: "ratio")
            try await store.set(true, forKey: "flag")
            try await store.set(Data([0, 1, 255]), forKey: "blob")
            let when = Date(timeIntervalSince1970: 1_795_000_000.123)
            try await store.set(when, forKey: "when")
            try await store.set([.string("a"), .integer(1)], forKey: "list")
            try await store.set(["x": .bool(false)], forKey: "dict")
            // A second store on another connection reads what the first wrote.
            let other = try await KeyValueStore.open(connection: try await UbiquityConnection.connect(to: daemon.socket))
            for s in [store, other] {
                #expect(s.string(forKey: "sortOrder") == "name")
                #expect(s.longLong(forKey: "big") == Int64.max)
                #expect(s.double(forKey: "ratio") == 2.5)
                #expect(s.bool(forKey: "flag"))
                #expect(s.data(forKey: "blob") == Data([0, 1, 255]))
                #expect(s.date(forKey: "when") == Date(timeIntervalSince1970: 1_795_000_000.123))
                #expect(s.array(forKey: "list") == [.string("a"), .integer(1)])
                #expect(s.dictionary(forKey: "dict") == ["x": .bool(false)])
                #expect(s.dictionaryRepresentation.count == 8)
                #expect(s.string(forKey: "absent") == nil && s.longLong(forKey: "absent") == 0 && !s.bool(forKey: "absent"))
            }
            try await store.removeObject(forKey: "flag")
            #expect(store.object(forKey: "flag") == nil)
            #expect(try await other.synchronize())
            #expect(other.object(forKey: "flag") == nil)
            await #expect(throws: ProtocolError.self) { try await store.set(String(repeating: "k", count: 65), forKey: String(repeating: "k", count: 65)) }
        }
    }

    @Test("Another process's write arrives as serverChange with its keys, after the local copy has it; own writes do not")
    func externalChanges() async throws {
        try await withDaemon { daemon in
            let mine = try await KeyValueStore.open(connection: try await UbiquityConnection.connect(to: daemon.socket))
            let theirs = try await KeyValueStore.open(connection: try await UbiquityConnection.connect(to: daemon.socket))
            var changes = mine.externalChanges().makeAsyncIterator()
            var theirChanges = theirs.externalChanges().makeAsyncIterator()
            try await mine.set("mine", forKey: "own")
            try await theirs.set("date", forKey: "sortOrder")
            let change = try await next(&changes)
            // The first change mine hears is theirs: its own write was not reported.
            #expect(change == KeyValueStoreChange(reason: .serverChange, keys: ["sortOrder"]))
            #expect(mine.string(forKey: "sortOrder") == "date")
            #expect(try await next(&theirChanges) == KeyValueStoreChange(reason: .serverChange, keys: ["own"]))
        }
    }

    @Test("A consumer that never reads externalChanges() holds at most 256 waiting changes, the newest")
    func unreadChangesAreBounded() async throws {
        try await withDaemon { daemon in
            let store = try await KeyValueStore.open(connection: try await UbiquityConnection.connect(to: daemon.socket))
            let unread = store.externalChanges()
            let writer = try RawClient(socket: daemon.socket)
            _ = try writer.request(#"{"id":0,"op":"hello","version":1}"#)
            // Another consumer, which reads, says when the last write has been applied.
            let read = store.externalChanges()
            let writes = 1_000
            for i in 0..<writes { _ = try writer.request(#"{"id":1,"op":"kv.set","key":"k\#(i)","value":\#(i)}"#) }
            let last = "k\(writes - 1)"
            let applied = try await firstWithin(60) {
                for await change in read where change.keys.contains(last) { return true }
                return false
            }
            #expect(applied == true, "the change of \(last) did not arrive within 60 s")
            // The local copy has every write: every kv.changed was applied and offered to the consumer.
            #expect(store.longLong(forKey: last) == Int64(writes - 1))
            await store.close()
            var kept: [KeyValueStoreChange] = []
            for await change in unread { kept.append(change) }
            #expect(kept.count <= 256, "\(kept.count) changes waited for a consumer that never read")
            #expect(kept.last?.keys == ["k\(writes - 1)"])
        }
    }
}

extension KeyValueStoreKitTests {
    /// At most eight keys per store, so that one file of another device can change more.
    static let keyQuota = 8

    /// Writes another device's file of the grocery store as a sync engine delivers it: complete,
    /// then renamed into place, every entry stamped a second after now.
    static func deliver(_ entries: [String: Int], to daemon: InProcessDaemon) throws {
        let folder = daemon.root + "/com.example.grocery/.ubiquity-kv"
        let stamp = Int64(Date().timeIntervalSince1970 * 1_000_000) + 1_000_000
        let body = entries.map { #""\#($0.key)":{"modified":\#(stamp),"value":\#($0.value)}"# }.joined(separator: ",")
        try #"{"format":"ubiquity.kv","version":1,"device":"phone","entries":{\#(body)}}"#
            .write(toFile: folder + "/.incoming", atomically: false, encoding: .utf8)
        try FS.rename(folder + "/.incoming", folder + "/phone.json")
    }

    @Test("When the daemon says any key changed, the app is told exactly the keys whose values differ")
    func anyKeyBecomesTheExactKeys() async throws {
        try await withDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
            try "save_index = false\n[key_value]\nmax_keys = \(Self.keyQuota)\n[[roots]]\npath = \"\(root)\"\n"
                .write(toFile: root + "/../ubiquityd.toml", atomically: true, encoding: .utf8)
        }) { daemon in
            let store = try await KeyValueStore.open(connection: try await UbiquityConnection.connect(to: daemon.socket))
            var changes = store.externalChanges().makeAsyncIterator()
            try await store.set("mine", forKey: "own")      // makes the store's folder
            let first = (1...6).map { "a\($0)" }
            try Self.deliver(Dictionary(uniqueKeysWithValues: first.enumerated().map { ($1, $0) }), to: daemon)
            #expect(try await next(&changes) == KeyValueStoreChange(reason: .initialSyncChange, keys: first))
            // The device's file replaced whole: a1 stays as it was, a2 changes, a3…a6 go, b1…b5
            // come — ten keys changed, more than the store may hold (it holds own, a1, a2 and
            // b1…b5, its eight): the daemon says "all", and the store reads itself again.
            try Self.deliver(["a1": 0, "a2": 20, "b1": 1, "b2": 2, "b3": 3, "b4": 4, "b5": 5], to: daemon)
            let change = try await next(&changes)
            #expect(change == KeyValueStoreChange(reason: .serverChange, keys: ["a2", "a3", "a4", "a5", "a6", "b1", "b2", "b3", "b4", "b5"],
                                                  reread: true))
            #expect(store.longLong(forKey: "a2") == 20 && store.object(forKey: "a3") == nil && store.longLong(forKey: "b5") == 5)
            #expect(store.dictionaryRepresentation.keys.sorted() == ["a1", "a2", "b1", "b2", "b3", "b4", "b5", "own"])
        }
    }
}

/// Lets a test hand an iterator to a child task and get it back (the test awaits the task).
private final class UncheckedIterator: @unchecked Sendable {
    var iterator: AsyncStream<KeyValueStoreChange>.Iterator
    init(_ iterator: AsyncStream<KeyValueStoreChange>.Iterator) { self.iterator = iterator }
    func next() async -> KeyValueStoreChange? { await iterator.next() }
}
