import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityTesting

/// Files on demand and the sync attributes on a daemon that no sync engine serves (a single
/// machine): `item.evict` and `item.download` are refused with `sync.noEngine` once the item is
/// found and judged for the peer, and every item says `current`, not uploaded.
@Suite("Files on demand without a sync engine", .ownThreads)
struct FilesOnDemandTests {
    static func hello(_ daemon: InProcessDaemon) throws -> RawClient {
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        return client
    }

    static func code(_ reply: JSONValue) -> String? { reply["error"]?["code"]?.stringValue }

    /// Sends a one-shot `query.start` and returns the attributes of every result it gathers.
    static func gather(_ client: RawClient, _ request: JSONValue) throws -> [JSONValue] {
        try client.send(JSONLine.encode(request))
        while true {
            let message = try client.readJSON(within: 30)
            try #require(message["error"] == nil, "\(message)")
            if message["event"]?.stringValue == "query.gatheringFinished" {
                return (message["results"]?.arrayValue ?? []).compactMap { $0["attributes"] }
            }
        }
    }

    @Test("Evict and download of a present item: sync.noEngine naming the container; path errors come first")
    func refusedWithoutAnEngine() async throws {
        try await withDaemon { daemon in
            let item = try daemon.place("Item_1", contents: "Milk")
            let client = try Self.hello(daemon)
            let evict = try client.request(#"{"id":1,"op":"item.evict","path":"\#(item)"}"#).response
            #expect(Self.code(evict) == "sync.noEngine", "\(evict)")
            #expect(evict["error"]?["container"]?.stringValue == "com.example.grocery")
            #expect(evict["error"]?["path"]?.stringValue == item)
            #expect(evict["error"]?["message"]?.stringValue?.contains("evicting") == true)
            let download = try client.request(#"{"id":2,"op":"item.download","path":"\#(item)","force":true}"#).response
            #expect(Self.code(download) == "sync.noEngine", "\(download)")
            #expect(download["error"]?["message"]?.stringValue?.contains("forcing a download") == true)
            // Nothing was touched: the file is still there with its bytes.
            #expect(try String(contentsOfFile: item, encoding: .utf8) == "Milk")

            let missing = try client.request(#"{"id":3,"op":"item.evict","path":"\#(daemon.documents())/Item_9"}"#).response
            #expect(Self.code(missing) == "item.notFound", "\(missing)")
            let relative = try client.request(#"{"id":4,"op":"item.download","path":"Documents/Item_1"}"#).response
            #expect(Self.code(relative) == "item.invalidPath", "\(relative)")
            #expect(symlink(item, daemon.documents() + "/Item_link") == 0)
            let link = try client.request(#"{"id":5,"op":"item.download","path":"\#(daemon.documents())/Item_link"}"#).response
            #expect(Self.code(link) == "item.forbidden" || Self.code(link) == "item.notFound", "\(link)")
            #expect(Self.code(link) != "sync.noEngine")
            let untyped = try client.request(#"{"id":6,"op":"item.download","path":"\#(item)","force":"yes"}"#).response
            #expect(Self.code(untyped) == "request.malformed", "\(untyped)")
        }
    }

    @Test("Every item says current and not uploaded: the attributes, a predicate over them, and sorting by them")
    func attributesSayWhatASingleMachineKnows() async throws {
        try await withDaemon(prepare: { root in
            for (name, text) in [("Item_1", "Milk"), ("Item_2", "Eggs")] {
                try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/com.example.grocery/Documents/" + name))
            }
        }) { daemon in
            let client = try Self.hello(daemon)
            let attributes = ["name", "downloadingStatus", "isDownloaded", "isDownloading", "percentDownloaded", "isUploaded",
                              "isUploading", "percentUploaded", "uploadedToAllDevices", "downloadingError", "uploadingError",
                              "currentVersionDevices"]
            let predicate = "name LIKE 'Item_*' AND downloadingStatus == 'current' AND isUploaded == NO AND percentDownloaded == 100"
            let request: JSONValue = .object(["id": .integer(1), "op": .string("query.start"), "predicate": .string(predicate),
                                              "live": .bool(false), "sort": .array([.string("percentUploaded"), .string("name")]),
                                              "attributes": .array(attributes.map { .string($0) })])
            let results = try Self.gather(client, request)
            #expect(results.compactMap { $0["kMDItemFSName"]?.stringValue } == ["Item_1", "Item_2"], "\(results)")
            for item in results {
                #expect(item["NSMetadataUbiquitousItemDownloadingStatusKey"]?.stringValue == "current", "\(item)")
                #expect(item["NSMetadataUbiquitousItemIsDownloadedKey"] == .bool(true))
                #expect(item["NSMetadataUbiquitousItemIsDownloadingKey"] == .bool(false))
                #expect(item["NSMetadataUbiquitousItemPercentDownloadedKey"]?.intValue == 100)
                #expect(item["NSMetadataUbiquitousItemIsUploadedKey"] == .bool(false))
                #expect(item["NSMetadataUbiquitousItemIsUploadingKey"] == .bool(false))
                #expect(item["NSMetadataUbiquitousItemPercentUploadedKey"]?.intValue == 0)
                #expect(item["uploadedToAllDevices"] == .bool(false))
                for absent in ["NSMetadataUbiquitousItemDownloadingErrorKey", "NSMetadataUbiquitousItemUploadingErrorKey",
                               "currentVersionDevices"] {
                    #expect(item[absent] == nil || item[absent] == .null, "\(absent): \(item)")
                }
            }
            // The "what is not here yet" view is empty on a single machine.
            let notHere = try Self.gather(client, .object(["id": .integer(2), "op": .string("query.start"),
                                                             "predicate": .string("downloadingStatus != 'current'"), "live": .bool(false)]))
            #expect(notHere.isEmpty, "\(notHere)")
        }
    }

    @Test("Another uid is judged first: evicting needs write, downloading read (needs root to switch uid)")
    func otherUserIsJudgedBeforeTheEngine() async throws {
        let other = AuthorizationTests.otherUID
        try await withDaemon(prepare: { root in
            let container = root + "/com.example.grocery", documents = container + "/Documents"
            try Data("shared".utf8).write(to: URL(fileURLWithPath: documents + "/Item_shared"))
            try Data("secret".utf8).write(to: URL(fileURLWithPath: documents + "/Item_secret"))
            chmod(documents + "/Item_shared", 0o644)
            chmod(documents + "/Item_secret", 0o600)
            chmod(container, 0o755)
            chmod(documents, 0o755)
            chown(container, other, other)
        }) { daemon in
            chmod(daemon.directory, 0o755)
            let documents = daemon.documents()
            let replies = try AuthorizationTests.exchange(as: other, socket: daemon.socket, [
                #"{"id":0,"op":"hello","version":1}"#,
                #"{"id":1,"op":"item.evict","path":"\#(documents)/Item_shared"}"#,
                #"{"id":2,"op":"item.download","path":"\#(documents)/Item_shared"}"#,
                #"{"id":3,"op":"item.download","path":"\#(documents)/Item_secret"}"#,
                #"{"id":4,"op":"item.evict","path":"\#(documents)/Item_secret"}"#,
            ])
            func code(_ id: Int) -> String? { replies.first { $0["id"]?.intValue == id }.flatMap(Self.code) }
            #expect(code(1) == "item.forbidden", "\(replies)")
            #expect(code(2) == "sync.noEngine", "\(replies)")
            #expect(code(3) == "item.forbidden", "\(replies)")
            #expect(code(4) == "item.forbidden", "\(replies)")
            #expect(try String(contentsOfFile: documents + "/Item_shared", encoding: .utf8) == "shared")
        }
    }
}
