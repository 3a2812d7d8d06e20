import Testing
import UbiquityJSON
@testable import UbiquityServer

/// What an eviction reads of Syncthing's record of one file (`GET /rest/db/file`), and when it
/// counts as held elsewhere (pure). The answers are Syncthing 1.19's, as it gave them on this
/// machine, cut to the fields read.
@Suite("Syncthing's record of one file, for an eviction")
struct SyncthingFileRecordTests {
    static let other = "FK37RYN-RXA3V77-5QNWY27-FIW6DIR-WG2UMLB-CQGRJUB-IRKVCGM-EN653QQ"
    static let own = "HZ37V6W-LZR55SI-B4ILETI-OOTNWVV-SSRYXXL-CPMNM7H-KROVVGD-KGX6CQ3"
    /// 2026-11-28T18:19:58.56818897Z
    static let modified: Int64 = 1_795_889_998_568_188_970

    /// An answer for `name` whose local record is the global one with `local`'s fields instead.
    static func answer(_ name: String, local: [String: String] = [:], availability: String? = nil) throws -> SyncthingFileRecord {
        let global = ["deleted": "false", "ignored": "false", "invalid": "false", "localFlags": "0",
                      "modified": #""2026-11-28T18:19:58.56818897Z""#, "name": #""\#(name)""#, "size": "11",
                      "type": #""FILE_INFO_TYPE_FILE""#, "version": #"["HZ37V6W:1795889998"]"#]
        func object(_ fields: [String: String]) -> String { "{" + fields.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",") + "}" }
        let holders = availability ?? #"[{"id":"\#(other)","fromTemporary":false}]"#
        let text = #"{"availability":\#(holders),"global":\#(object(global)),"local":\#(object(global.merging(local) { $1 }))}"#
        return try #require(SyncthingFileRecord(json: try JSONLine.parse(Array(text.utf8))))
    }

    func why(_ record: SyncthingFileRecord, _ path: String, size: Int64 = 11, modified: Int64 = modified) -> String? {
        record.whyNotHeldElsewhere(path, size: size, modified: modified, ownDevice: Self.own)
    }

    @Test("In sync and held by a connected device: nothing stands in the way")
    func held() throws {
        let record = try Self.answer("Documents/caf\u{E9}")
        #expect(record.holders == [Self.other] && record.local?.modified == Self.modified && record.local?.size == 11)
        #expect(why(record, "Documents/caf\u{E9}") == nil)
    }

    @Test("Asked for the decomposed spelling, Syncthing answers the precomposed file it holds: not this file")
    func anotherSpelling() throws {
        let reason = why(try Self.answer("Documents/caf\u{E9}"), "Documents/cafe\u{301}")
        #expect(reason?.contains("another spelling") == true, "\(reason ?? "nil")")
    }

    @Test("Ignored or invalid here, deleted, another version, changed since its scan, no holder, a holder with a partial copy, this device alone: refused")
    func refusals() throws {
        let path = "Documents/plain.txt"
        // As Syncthing 1.19 records a file a line of .stignore ignores after it was indexed.
        #expect(why(try Self.answer(path, local: ["ignored": "true", "invalid": "true", "localFlags": "2"]), path)?.contains("ignores it") == true)
        #expect(why(try Self.answer(path, local: ["invalid": "true"]), path)?.contains("invalid") == true)
        #expect(why(try Self.answer(path, local: ["deleted": "true"]), path)?.contains("deleted") == true)
        #expect(why(try Self.answer(path, local: ["version": #"["HZ37V6W:1795889990"]"#]), path)?.contains("not the sync engine's current version") == true)
        #expect(why(try Self.answer(path), path, size: 12)?.contains("changed since") == true)
        #expect(why(try Self.answer(path), path, modified: Self.modified + 1)?.contains("changed since") == true)
        // The other device paused or disconnected: Syncthing answers `null`.
        #expect(why(try Self.answer(path, availability: "null"), path)?.contains("no connected device") == true)
        #expect(why(try Self.answer(path, availability: #"[{"id":"\#(Self.other)","fromTemporary":true}]"#), path)?.contains("no connected device") == true)
        #expect(why(try Self.answer(path, availability: #"[{"id":"\#(Self.own)","fromTemporary":false}]"#), path)?.contains("no connected device") == true)
        #expect(SyncthingFileRecord(json: .string("No such object in the index")) == nil)
        #expect(why(try #require(SyncthingFileRecord(json: .object([:]))), path)?.contains("no record") == true)
    }
}
