import Foundation
import Testing
import UbiquityIndex
import UbiquityJSON
@testable import UbiquityServer
import UbiquityTesting

/// `storage` against the real daemon: items and bytes per scope (a package as one item with the
/// sum of its contents), the largest documents, what other devices need from the sync engine's
/// facts, and its refusals.
@Suite("Storage: what each container takes", .ownThreads)
struct StorageTests {
    static func tree(_ root: String) throws {
        let container = root + "/com.example.grocery"
        try FileManager.default.createDirectory(atPath: container + "/Documents/grocery.gro/images", withIntermediateDirectories: true)
        for (path, size) in [("Documents/Item_1", 4), ("Documents/big", 1000), ("Documents/grocery.gro/items.json", 100),
                             ("Documents/grocery.gro/images/x", 50), ("data.bin", 20)] {
            try Data(repeating: 0x61, count: size).write(to: URL(fileURLWithPath: container + "/" + path))
        }
    }

    static func storage(_ client: RawClient, _ request: String) throws -> JSONValue {
        try client.request(request).response
    }

    @Test("Per scope, the largest documents, and what other devices need once a sync engine's facts arrive; refusals")
    func storage() async throws {
        try await withDaemon(prepare: Self.tree) { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let answer = try Self.storage(client, #"{"id":1,"op":"storage","largest":2}"#)
            let grocery = try #require(answer["result"]?["containers"]?.arrayValue?.first, "\(answer)")
            #expect(grocery["container"]?.stringValue == "com.example.grocery")
            // Documents/ itself, Item_1, big and the package as one item of 150 bytes.
            #expect(grocery["documents"]?["items"]?.intValue == 4 && grocery["documents"]?["bytes"]?.intValue == 1154, "\(grocery)")
            #expect(grocery["data"]?["items"]?.intValue == 1 && grocery["data"]?["bytes"]?.intValue == 20, "\(grocery)")
            let largest = grocery["largest"]?.arrayValue?.compactMap { $0["path"]?.stringValue?.split(separator: "/").last.map(String.init) }
            #expect(largest == ["big", "grocery.gro"])
            #expect(grocery["sync"]?.stringValue == "none" && grocery["devices"]?.arrayValue?.isEmpty == true)
            #expect(grocery["evicted"]?["items"]?.intValue == 0 && grocery["evicted"]?["bytes"]?.intValue == 0, "\(grocery)")

            // The sync engine's facts: device B needs two paths, C none.
            let container = try ContainerID("com.example.grocery")
            let facts = ContainerSyncFacts(known: true, devices: ["B", "C"], connected: ["B"],
                                           remoteNeed: ["B": ["Documents/big", "data.bin"], "C": []], readAt: Int64.max)
            await daemon.daemon.engine.updateSyncFacts(facts, for: container)
            let synced = try #require(try Self.storage(client, #"{"id":2,"op":"storage","container":"com.example.grocery"}"#)["result"]?["containers"]?.arrayValue?.first)
            #expect(synced["sync"]?.stringValue == "known")
            let devices = synced["devices"]?.arrayValue ?? []
            #expect(devices.map { "\($0["device"]?.stringValue ?? "")/\($0["connected"] == .bool(true))/\($0["needs"]?.intValue ?? -1)" }
                    == ["B/true/2", "C/false/0"], "\(synced)")
            await daemon.daemon.engine.updateSyncFacts(.unknown, for: container)
            let unknown = try Self.storage(client, #"{"id":3,"op":"storage"}"#)["result"]?["containers"]?.arrayValue?.first
            #expect(unknown?["sync"]?.stringValue == "unknown" && unknown?["devices"]?.arrayValue?.isEmpty == true)

            let tooMany = try Self.storage(client, #"{"id":4,"op":"storage","largest":101}"#)
            #expect(tooMany["error"]?["code"]?.stringValue == "request.malformed" && tooMany["error"]?["field"]?.stringValue == "largest",
                    "\(tooMany)")
            let unknownContainer = try Self.storage(client, #"{"id":5,"op":"storage","container":"com.example.nope"}"#)
            #expect(unknownContainer["error"]?["code"]?.stringValue == "container.unknown", "\(unknownContainer)")
        }
    }

    @Test("Evicted items: counted with their scope's items at 0 bytes, and apart with the bytes of their last known sizes")
    func evicted() async throws {
        try await withDaemon(prepare: { root in
            try Self.tree(root)
            // Two placeholders as eviction leaves them: empty of data, the item's size kept.
            let documents = root + "/com.example.grocery/Documents"
            for (name, size) in [("gone", 300), ("gone too", 7)] {
                let placeholder = documents + "/." + name + ".ubiquity-evicted"
                #expect(FileManager.default.createFile(atPath: placeholder, contents: nil))
                #expect(truncate(placeholder, off_t(size)) == 0)
            }
        }) { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let answer = try Self.storage(client, #"{"id":1,"op":"storage","largest":10}"#)
            let grocery = try #require(answer["result"]?["containers"]?.arrayValue?.first, "\(answer)")
            #expect(grocery["evicted"]?["items"]?.intValue == 2 && grocery["evicted"]?["bytes"]?.intValue == 307, "\(grocery)")
            // In Documents/ as items, taking no space here; never among the largest.
            #expect(grocery["documents"]?["items"]?.intValue == 6 && grocery["documents"]?["bytes"]?.intValue == 1154, "\(grocery)")
            let largest = grocery["largest"]?.arrayValue?.compactMap { $0["path"]?.stringValue?.split(separator: "/").last.map(String.init) }
            #expect(largest == ["big", "grocery.gro", "Item_1"], "\(grocery)")
        }
    }

    @Test("Another uid sees only the containers it may read (needs root to switch uid)")
    func otherUser() async throws {
        try await withDaemon(prepare: Self.tree) { daemon in
            chmod(daemon.directory, 0o755)
            let replies = try AuthorizationTests.exchange(as: AuthorizationTests.otherUID, socket: daemon.socket, [
                #"{"id":0,"op":"hello","version":1}"#,
                #"{"id":1,"op":"storage"}"#,
                #"{"id":2,"op":"storage","container":"com.example.grocery"}"#,
            ])
            func code(_ id: Int) -> String? { replies.first { $0["id"]?.intValue == id }?["error"]?["code"]?.stringValue }
            #expect(code(1) == "container.forbidden", "\(replies)")
            #expect(code(2) == "container.forbidden", "\(replies)")
        }
    }
}
