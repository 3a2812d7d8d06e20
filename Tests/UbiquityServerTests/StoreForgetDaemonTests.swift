import Foundation
import Glibc
import Logging
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityStore
import UbiquityTesting
@testable import UbiquityServer

/// `store.forget` against the real daemon (docs/stores.md, "Forgetting a device"): a device that
/// never acknowledges holds this device's segments; forgotten, it no longer does — compaction
/// runs at once and goes on without it — while none of its files are removed; a newer
/// acknowledgement from it makes it known again.
@Suite("Forgetting a store's device against the real daemon", .serialized, .ownThreads)
struct StoreForgetDaemonTests {
    typealias T = StoreDaemonTests

    static func ownSegments(_ store: String, _ device: String) throws -> [Int] {
        try FileManager.default.contentsOfDirectory(atPath: "\(store)/logs/\(device)").compactMap { Int($0) }.sorted()
    }

    static func tabletInStatus(_ client: RawClient, id: Int) throws -> JSONValue? {
        let status = try client.result(#"{"id":\#(id),"op":"status"}"#)
        return status["stores"]?.arrayValue?.first?["devices"]?.arrayValue?.first { $0["device"]?.stringValue == "tablet" }
    }

    @Test("A silent tablet holds the segments; forgotten, compaction removes them at once and stops waiting, its files stay; its newer acknowledgement makes it known again")
    func forgettingASilentDeviceLetsCompactionGoOn() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            let device = try #require(try T.open(client)["device"]?.stringValue)
            let store = "\(daemon.root)/\(T.container)/.ubiquity-stores/grocery"
            // The tablet: one segment of its own and an acknowledgement of nothing of ours, 40 days old.
            var tablet = StoreReplica(schema: T.schema, device: DeviceID("tablet")!)
            try StoreCompactionDaemonTests.acknowledge(#"{"tablet":1}"#, device: "tablet", age: 40 * 86_400, root: daemon.root)
            try T.deliver(try T.segment(&tablet, inserting: ["bread"], ids: [1]), device: "tablet", sequence: 1, root: daemon.root)
            _ = try T.nextChange(client)
            for n in 1...50 {
                _ = try client.result(#"{"id":\#(n + 1),"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"item \#(n)"}}]}"#)
            }
            #expect(try Self.ownSegments(store, device) == Array(1...50), "the tablet has acknowledged none")
            #expect(try Self.tabletInStatus(client, id: 60)?["silentSince"]?.intValue != nil)

            let forgotten = try client.result(#"{"id":61,"op":"store.forget","store":"grocery","device":"tablet"}"#)
            #expect(forgotten == .object(["container": .string(T.container), "store": .string("grocery"), "device": .string("tablet"),
                                          "forgotten": .bool(true), "removed": .integer(50), "waitingFor": .array([])]), "\(forgotten)")
            #expect(try Self.ownSegments(store, device).isEmpty, "compaction ran at once")
            #expect(try Self.ownSegments(store, "tablet") == [1] && FileManager.default.fileExists(atPath: "\(store)/acks/tablet"),
                    "the tablet's files are its own: none is removed")
            let inStatus = try Self.tabletInStatus(client, id: 62)
            #expect(inStatus?["forgotten"] == .bool(true) && inStatus?["silentSince"] == nil, "\(String(describing: inStatus))")
            let status = try client.result(#"{"id":63,"op":"status"}"#)
            #expect(!(status["degraded"]?.arrayValue ?? []).contains { $0.stringValue?.contains("device tablet") == true })
            // Kept in the state directory, for the next start.
            let kept = RelationalStores.keptForgotten(stateDirectory: daemon.directory + "/state", container: T.container, store: "grocery",
                                                      logger: Logger(label: "test"))
            #expect(kept.keys.map(\.rawValue) == ["tablet"])
            // Forgetting it again changes nothing.
            let again = try client.result(#"{"id":64,"op":"store.forget","store":"grocery","device":"tablet"}"#)
            #expect(again["removed"] == .integer(0))
            // Its rows stay, and its later segments are still imported.
            try T.deliver(try T.segment(&tablet, inserting: ["milk"], ids: [2]), device: "tablet", sequence: 2, root: daemon.root)
            _ = try T.nextChange(client)
            #expect(try client.result(#"{"id":65,"op":"store.fetch","store":"grocery","table":"items"}"#)["count"] == .integer(52))

            // The tablet comes back: a newer acknowledgement (of our segment 50). From now on
            // compaction waits for it again, from what it acknowledged.
            try StoreCompactionDaemonTests.acknowledge(#"{"\#(device)":50,"tablet":3}"#, device: "tablet", age: 0, root: daemon.root)
            try T.deliver(try T.segment(&tablet, inserting: ["eggs"], ids: [3]), device: "tablet", sequence: 3, root: daemon.root)
            _ = try T.nextChange(client)
            for n in 51...100 {
                _ = try client.result(#"{"id":\#(n + 100),"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"item \#(n)"}}]}"#)
            }
            #expect(try Self.ownSegments(store, device) == Array(51...100), "the tablet is waited for again")
            let back = try Self.tabletInStatus(client, id: 300)
            #expect(back != nil && back?["forgotten"] == nil, "\(String(describing: back))")
        }
    }

    @Test("Forgetting this device itself, a device the store does not know, or something that is no device id: a clear error with its code")
    func forgettingWhatCannotBeForgotten() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            let device = try #require(try T.open(client)["device"]?.stringValue)
            var phone = StoreReplica(schema: T.schema, device: DeviceID("phone")!)
            try T.deliver(try T.segment(&phone, inserting: ["bread"], ids: [1]), device: "phone", sequence: 1, root: daemon.root)
            _ = try T.nextChange(client)

            let own = try #require(try T.errorOf(client, #"{"id":2,"op":"store.forget","store":"grocery","device":"\#(device)"}"#))
            #expect(own["code"] == .string("store.ownDevice") && own["device"] == .string(device))
            #expect(own["message"]?.stringValue?.contains("this daemon's own") == true, "\(own)")
            let unknown = try #require(try T.errorOf(client, #"{"id":3,"op":"store.forget","store":"grocery","device":"tablet"}"#))
            #expect(unknown["code"] == .string("store.unknownDevice"))
            #expect(unknown["message"]?.stringValue?.contains("knows no device 'tablet'") == true
                    && unknown["message"]?.stringValue?.contains("the other devices it knows: phone") == true, "\(unknown)")
            let malformed = try #require(try T.errorOf(client, #"{"id":4,"op":"store.forget","store":"grocery","device":"../phone"}"#))
            #expect(malformed["code"] == .string("store.unknownDevice") && malformed["message"]?.stringValue?.contains("cannot name a device") == true)
            let noStore = try #require(try T.errorOf(client, #"{"id":5,"op":"store.forget","store":"pantry","device":"phone"}"#))
            #expect(noStore["code"] == .string("store.unknown"))
            let missing = try #require(try T.errorOf(client, #"{"id":6,"op":"store.forget","store":"grocery"}"#))
            #expect(missing["code"] == .string("request.malformed"), "\(missing)")
            // Nothing was forgotten.
            let phoneState = try client.result(#"{"id":7,"op":"status"}"#)["stores"]?.arrayValue?.first?["devices"]?.arrayValue?
                .first { $0["device"]?.stringValue == "phone" }
            #expect(phoneState != nil && phoneState?["forgotten"] == nil)
        }
    }
}
