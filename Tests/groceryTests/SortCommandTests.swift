import Foundation
import Testing
import UbiquityTesting

/// `grocery sort`: the list's order lives in the container's key-value store.
@Suite(.ownThreads) struct SortCommandTests {
    @Test func theStoredOrderIsUsedByListUntilOverridden() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        #expect(try grocery.run(["sort"] + s).stdout == "name\n")
        #expect(try grocery.run(["add", "zucchini"] + s).status == 0)
        #expect(try grocery.run(["add", "apples"] + s).status == 0)
        func names(_ extra: [String] = []) throws -> [String] {
            try grocery.run(["list", "--json"] + extra + s).stdout.split(separator: "\n").compactMap {
                (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["name"] as? String
            }
        }
        #expect(try names() == ["apples", "zucchini"])
        #expect(try grocery.run(["sort", "created"] + s).status == 0)
        #expect(try grocery.run(["sort", "--json"] + s).stdout == #"{"sortOrder":"created"}"# + "\n")
        #expect(try names() == ["zucchini", "apples"])
        #expect(try names(["--sort", "name"]) == ["apples", "zucchini"])
        // It is a key like any other: ubiq-style clients see it too.
        let raw = try RawClient(socket: daemon.socket)
        _ = try raw.request(#"{"id":0,"op":"hello","version":1}"#)
        #expect(try raw.request(#"{"id":1,"op":"kv.get","key":"grocery.sortOrder"}"#).response["result"]?["value"] == .string("created"))
        let bad = try grocery.run(["sort", "size"] + s)
        #expect(bad.status == 64)
    }
}
