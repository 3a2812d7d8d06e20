import Foundation
import Testing
import UbiquityJSON
@testable import UbiquityProtocol
import UbiquityStore

/// The one registry of operations (``Operations``): every operation's request and result survive
/// encode → decode, and what derives from the list (names, unknown and retired operations) is right.
@Suite("Operation registry")
struct OperationRegistryTests {
    /// One request of every registered operation, some twice (optional parameters given and not).
    static let requests: [any ProtocolOperation] = [
        Hello(version: 1, client: "t"), Hello(version: 1), ContainersList(), ContainerURL(), ContainerURL(container: "com.example.a"),
        QueryStart(QueryParameters(predicate: "name LIKE %@", containers: ["com.example.a", "com.example.b"], scopes: [.documents],
                                   arguments: [.string("Item_*")], variables: ["X": .integer(1)], sort: ["name", "size:desc"],
                                   attributes: ["name", "size"], batchingInterval: 0, live: false, since: "c1")),
        QueryStart(QueryParameters(predicate: "TRUEPREDICATE")),
        QueryResults(query: 3), QueryDisableUpdates(query: 3), QueryEnableUpdates(query: 3), QueryStop(query: 3),
        QueryRelease(query: 3), Status(),
        VersionsList(path: "Documents/a b.txt"), DocumentLock(path: "Documents/a"), DocumentUnlock(lock: 2),
        DocumentWatch(path: "Documents/a"), DocumentUnwatch(watch: 4),
        KVGet(key: "k"), KVGet(container: "com.example.a", key: "k"),
        KVSet(key: "k", value: .object(["$date": .string("2026-05-01T12:00:00Z")])),
        KVSet(container: "com.example.a", key: "k", value: .array([.integer(1), .null])),
        KVRemove(container: "com.example.a", key: "k"), KVAll(), KVSynchronize(container: "com.example.a"),
        KVSubscribe(), KVUnsubscribe(store: 7),
        StoreOpen(store: "grocery", schema: StoreWireTests.grocery), StoreOpen(container: "com.example.a", store: "g", schema: StoreWireTests.grocery),
        StoreDescribe(store: "grocery"), StoreDescribe(container: "com.example.a", store: "grocery"),
        StoreSave(store: "grocery", changes: [
            .insert(table: "items", id: nil, values: ["name": .string("carrots"), "quantity": .integer(2)]),
            .insert(table: "tags", id: "98471ebd5834f35ea8bba0281d3c03c2", values: ["name": .string("mall")]),
            .update(table: "items", id: "00000000000000000000000000000001", values: ["note": .null]),
            .delete(table: "items", id: "00000000000000000000000000000002"),
            .relate(relationship: "tags", from: "00000000000000000000000000000001", to: "98471ebd5834f35ea8bba0281d3c03c2"),
            .unrelate(relationship: "tags", from: "00000000000000000000000000000001", to: "98471ebd5834f35ea8bba0281d3c03c2"),
        ]),
        StoreFetch(store: "grocery", table: "items"),
        StoreFetch(container: "com.example.a", store: "grocery", table: "items",
                   where: [StoreCondition("quantity", .greater, .integer(1)), StoreCondition("name", .equal, .string("carrots"))],
                   sort: ["name", "quantity:desc"], limit: 10),
        StoreWatch(StoreFetch(store: "grocery", table: "items", where: [StoreCondition("done", .equal, .bool(false))], sort: ["name"])),
        StoreFetch(store: "grocery", table: "items", predicate: "name BEGINSWITH 'car' AND tags CONTAINS 'mall'", related: ["tags"]),
        StoreWatch(StoreFetch(store: "grocery", table: "tags", predicate: "name == 'mall'", related: ["items"])),
        StoreUnwatch(watch: 5),
        StoreForget(store: "grocery", device: "tablet"), StoreForget(container: "com.example.a", store: "grocery", device: "tablet"),
        ItemPublish(path: "/c/Documents/a"), ItemPublish(path: "/c/Documents/a", expires: .after(seconds: 3600)),
        ItemPublish(path: "/c/Documents/a", expires: .at(1_795_000_000)), ItemUnpublish(token: "t"), ItemPublished(),
        ItemEvict(path: "/c/Documents/a"), ItemDownload(path: "/c/Documents/a"), ItemDownload(path: "/c/Documents/a", force: true),
        Storage(), Storage(container: "com.example.a", largest: 3),
    ]

    @Test("Every operation's request survives encode → decode, under either kind of id")
    func requestsRoundTrip() throws {
        for (i, operation) in Self.requests.enumerated() {
            for id in [RequestID.number(Int64(i)), .text("r\(i)")] {
                let request = Request(id: id, operation)
                let decoded = try Request(json: try JSONLine.decode(Array(JSONLine.encode(request.json).utf8)))
                #expect(decoded == request, "\(operation.name)")
                #expect(decoded.json == request.json)
            }
        }
    }

    @Test("The requests above cover every registered operation, and names are unique")
    func everyOperationIsCovered() {
        #expect(Set(Self.requests.map(\.name)) == Set(Operations.names))
        #expect(Set(Operations.names).count == Operations.all.count)
        #expect(Set(Operations.names).isDisjoint(with: Operations.retired.keys))
    }

    @Test("The registry is the Operations/ folder: one operation per file, named after it")
    func registryIsTheFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/UbiquityProtocol/Operations").standardizedFileURL
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") }.map { String($0.dropLast(".swift".count)) }
        #expect(files.count >= 22, "read \(folder.path)")
        #expect(Set(Operations.all.map { String(describing: $0) }) == Set(files))
    }

    @Test("Every operation's typed result survives encode → decode")
    func resultsRoundTrip() throws {
        func check<R: OperationResult & Hashable>(_ result: R) throws {
            #expect(try R(json: try JSONLine.decode(Array(JSONLine.encode(result.json).utf8))) == result, "\(R.self)")
        }
        let etag = ItemETag(rawValue: "1834-1763805600.123456789-4")
        let container = ContainerInfo(id: "com.example.a", path: "/srv/a", available: true, items: 3, ownerUID: 1000, groupGID: nil,
                                      packageTypes: ["pages": "com.apple.pages"])
        try check(ContainersList.Result(containers: [container]))
        try check(ContainerURLResult(container: "com.example.a", path: "/srv/a", documents: "/srv/a/Documents"))
        try check(QueryStart.Result(query: 1))
        try check(QueryResults.Result(query: 1, results: []))
        try check(QueryDisableUpdates.Result(query: 1))
        try check(QueryEnableUpdates.Result(query: 1))
        try check(QueryStop.Result(query: 1))
        try check(QueryRelease.Result(query: 1))
        try check(DocumentLock.Result(lock: 1, path: "Documents/a", etag: etag))
        try check(DocumentLock.Result(lock: 1, path: "Documents/a", etag: nil))
        try check(DocumentUnlock.Result(lock: 1, etag: etag))
        try check(DocumentWatch.Result(watch: 2, path: "Documents/a", locked: true, yours: false, etag: nil))
        try check(DocumentUnwatch.Result(watch: 2))
        try check(KVGet.Result(container: "com.example.a", key: "k", value: .string("v")))
        try check(KVGet.Result(container: "com.example.a", key: "k", value: nil))
        try check(KVSet.Result(container: "com.example.a", key: "k"))
        try check(KVRemove.Result(container: "com.example.a", key: "k", removed: true))
        try check(KVAll.Result(container: "com.example.a", values: ["k": .integer(3)], keys: 1, bytes: 2, maxKeys: 1024,
                               maxBytes: 1 << 20, maxKeyBytes: 64))
        try check(KVSynchronize.Result(container: "com.example.a", changed: ["k"]))
        try check(KVSubscribe.Result(store: 1, container: "com.example.a"))
        let published = PublishedItem(url: "http://127.0.0.1:8080/p/t", token: "t", path: "/c/Documents/a", size: 4, expires: 1_795_000_000)
        try check(published)
        try check(ItemUnpublish.Result(token: "t", revoked: true))
        try check(ItemPublished.Result(items: [published]))
        try check(ItemSyncState(path: "/c/Documents/a", downloadingStatus: "notDownloaded", isDownloading: false))
        try check(ItemSyncState(path: "/c/Documents/a", downloadingStatus: "downloaded", isDownloading: true))
        try check(StorageResult(containers: [.init(container: "com.example.a", documentsItems: 3, documentsBytes: 1154, dataItems: 1, dataBytes: 20,
                                                   largest: [.init(path: "/c/Documents/big", size: 1000)], sync: "known",
                                                   devices: [.init(device: "B", connected: true, needs: 2)])]))
        try check(KVUnsubscribe.Result(store: 1))
        var silent = StoreDeviceState(device: "reader", imported: 0, state: "current")
        silent.silentSince = 1_767_225_600_000
        var forgotten = StoreDeviceState(device: "old", imported: 4, state: "current")
        forgotten.forgotten = true
        let states = [StoreDeviceState(device: "laptop", imported: 3, state: "current"), silent, forgotten,
                      StoreDeviceState(device: "phone", imported: 1, state: "degraded", sequence: 2, code: "store.segmentChecksum", reason: "damaged"),
                      StoreDeviceState(device: "tablet", imported: 0, state: "needsUpgrade", sequence: 1, schemaVersion: 2)]
        try check(StoreDescription(container: "com.example.a", store: "grocery", device: "laptop", schema: StoreWireTests.grocery,
                                   devices: states, clock: "s3", opened: "created", handle: 4))
        try check(StoreDescription(container: "com.example.a", store: "grocery", device: "laptop", schema: StoreWireTests.grocery,
                                   devices: [], clock: "s0"))
        try check(StoreSave.Result(container: "com.example.a", store: "grocery", inserted: ["00000000000000000000000000000001"], clock: "s4", segment: 2))
        try check(StoreSave.Result(container: "com.example.a", store: "grocery", inserted: [], clock: "s4", segment: nil))
        try check(StoreWatch.Result(watch: 5))
        try check(StoreUnwatch.Result(watch: 5))
        try check(StoreForget.Result(container: "com.example.a", store: "grocery", device: "tablet", removed: 50, waitingFor: []))
        try check(StoreForget.Result(container: "com.example.a", store: "grocery", device: "tablet", removed: 0, waitingFor: ["phone"]))
        try check(StoreFetch.Result(container: "com.example.a", store: "grocery", table: "items",
                                    rows: [.object(["id": .string("00000000000000000000000000000001"), "name": .string("carrots")])], clock: "s4"))
    }

    @Test("Answers keep their wire shape: the fields clients and docs/protocol.md rely on")
    func wireShapes() {
        #expect(JSONLine.encode(QueryStop.Result(query: 3).json) == #"{"query":3,"stopped":true}"#)
        #expect(JSONLine.encode(QueryDisableUpdates.Result(query: 3).json) == #"{"query":3,"updates":"disabled"}"#)
        #expect(JSONLine.encode(DocumentUnlock.Result(lock: 1, etag: nil).json) == #"{"etag":null,"lock":1,"unlocked":true}"#)
        #expect(JSONLine.encode(KVGet.Result(container: "c", key: "k", value: nil).json) == #"{"container":"c","key":"k","value":null}"#)
        #expect(JSONLine.encode(Request(id: .number(1), KVGet(key: "k")).json) == #"{"id":1,"key":"k","op":"kv.get"}"#)
    }

    @Test("An unknown operation is refused with the nearest name; a retired one says what replaced it")
    func unknownAndRetired() {
        func refusal(_ line: String) -> PartialRequestError? {
            do { _ = try Request(json: try JSONLine.decode(Array(line.utf8))); return nil } catch let error as PartialRequestError { return error } catch { return nil }
        }
        let unknown = refusal(#"{"id":1,"op":"kv.gte"}"#)
        #expect(unknown?.id == .number(1))
        #expect(unknown?.error.code == .requestUnknownOperation)
        #expect(unknown?.error.message == "unknown operation 'kv.gte'; did you mean 'kv.get'?")
        let retired = refusal(#"{"id":2,"op":"version.read"}"#)
        #expect(retired?.error.code == .requestUnknownOperation)
        #expect(retired?.error.message.hasPrefix("operation 'version.read' was removed; ") == true)
        let malformed = refusal(#"{"id":3,"op":"kv.get"}"#)
        #expect(malformed?.error.code == .requestMalformed)
    }
}
