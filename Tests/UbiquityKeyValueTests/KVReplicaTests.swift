import Testing
@testable import UbiquityKeyValue

@Suite("One device's file: its bytes read back; damaged files are refused with a reason")
struct KVReplicaTests {
    @Test("Writes and reads back every entry")
    func roundTrip() throws {
        let replica = KVReplica(device: "dev-1", entries: [
            "a": KVEntry(value: .array([.data([0, 255]), .date(0)]), modified: 17, device: "dev-1"),
            "gone": KVEntry(value: nil, modified: 18, device: "dev-1"),
        ])
        #expect(try KVReplica(bytes: replica.bytes) == replica)
    }

    static let damaged: [(String, String)] = [
        ("", "empty"),
        ("{\"format\":\"ubiquity.kv\",\"version\":1,\"device\":\"d\",\"entries\":{\"a\":{\"modif", "not valid JSON"),
        ("\u{1}\u{2}garbage", "not valid JSON"),
        ("[1]", "not a JSON object"),
        (#"{"format":"other","version":1,"device":"d","entries":{}}"#, "'format'"),
        (#"{"format":"ubiquity.kv","version":2,"device":"d","entries":{}}"#, "version 2"),
        (#"{"format":"ubiquity.kv","version":1,"device":"../x","entries":{}}"#, "'device'"),
        (#"{"format":"ubiquity.kv","version":1,"device":"d","entries":{"a":{"value":1}}}"#, "'modified'"),
        (#"{"format":"ubiquity.kv","version":1,"device":"d","entries":{"a":{"modified":-1,"value":1}}}"#, "'modified'"),
        (#"{"format":"ubiquity.kv","version":1,"device":"d","entries":{"a":{"modified":1}}}"#, "neither"),
        (#"{"format":"ubiquity.kv","version":1,"device":"d","entries":{"a":{"modified":1,"value":null}}}"#, "null"),
    ]

    @Test("Damaged files are refused, saying why", arguments: damaged)
    func refused(_ text: String, _ phrase: String) {
        do {
            _ = try KVReplica(bytes: Array(text.utf8))
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.reason.contains(phrase), "\(error.reason)")
        }
    }

    @Test("Only the newest removals are kept past the limit")
    func removals() {
        var replica = KVReplica(device: "d")
        for i in 0..<(KVReplica.maxRemovals + 5) { replica.entries["k\(i)"] = KVEntry(value: nil, modified: Int64(i), device: "d") }
        replica.entries["live"] = KVEntry(value: .integer(1), modified: 0, device: "d")
        replica.trimRemovals()
        #expect(replica.entries.count == KVReplica.maxRemovals + 1)
        #expect(replica.entries["k0"] == nil && replica.entries["k\(KVReplica.maxRemovals + 4)"] != nil && replica.entries["live"] != nil)
    }

    @Test("Files past the read limits are refused from a scan, before parsing: bytes, values, nesting")
    func readLimits() {
        let limits = KVReadLimits()
        #expect(limits.fileBytes == 2 << 20 && limits.storeBytes == 8 << 20 && limits.files == 64)
        #expect(limits.fileValues == 262_144 && limits.storeValues == 1_048_576)
        #expect(KVReadLimits(quota: KVQuota(maxKeys: 1_024, maxBytes: 4 << 20, maxKeyBytes: 64)).fileBytes == 8 << 20)
        #expect(KVReadLimits(quota: KVQuota(maxKeys: 1_024, maxBytes: .max, maxKeyBytes: 64)).storeBytes == .max)
        func wrap(_ value: String) -> [UInt8] {
            Array(#"{"format":"ubiquity.kv","version":1,"device":"d","entries":{"k":{"modified":1,"value":\#(value)}}}"#.utf8)
        }
        // Brackets and commas inside strings are not structure: 1 + three objects + four commas.
        #expect(KVReplica.measure(wrap(#""[,[,{\"""#), limits: limits) == KVReadLimits.Cost(values: 8, depth: 3))
        let many = "[" + Array(repeating: "0", count: 262_144).joined(separator: ",") + "]"
        #expect(throws: KVFileProblem.self) { try KVReplica(bytes: wrap(many), limits: limits) }
        let fewer = "[" + Array(repeating: "0", count: 200_000).joined(separator: ",") + "]"
        #expect((try? KVReplica(bytes: wrap(fewer), limits: limits)) != nil)
        let deepest = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect((try? KVReplica(bytes: wrap(deepest), limits: limits)) != nil)
        let deeper = String(repeating: "[", count: 34) + String(repeating: "]", count: 34)
        #expect { try KVReplica(bytes: wrap(deeper), limits: limits) } throws: { "\($0)".contains("nests deeper than 32") }
        #expect { try KVReplica(bytes: [UInt8](repeating: 0x20, count: (2 << 20) + 1), limits: limits) } throws: { "\($0)".contains("2097152") }
    }
}
