import Glibc
import Testing
import UbiquityKeyValue
@testable import UbiquityServer
import UbiquityTesting

/// How one reading of a key-value store's folder counts files against the store's bound.
@Suite("Key-value folder reading")
struct KeyValueFilesTests {
    static func replica(device: String, _ entries: String) -> String {
        #"{"format":"ubiquity.kv","version":1,"device":"\#(device)","entries":{\#(entries)}}"# + "\n"
    }

    /// A file read before that does not read now (a sync engine replacing it, or damaged) keeps
    /// what it said, and counts once against the store's number of files, not twice: at the
    /// bound, it is not dropped (its keys would go, then come back at the next reading).
    @Test func aFileKeptFromBeforeCountsOnceAgainstTheBound() throws {
        let root = try FS.temporaryDirectory()
        defer { try? FS.removeTree(root) }
        let folder = root + "/" + KeyValueFiles.directory
        try FS.mkdir(folder)
        try FS.write(folder + "/laptop.json", Self.replica(device: "laptop", #""a":{"modified":1,"value":1}"#))
        try FS.write(folder + "/phone.json", Self.replica(device: "phone", #""b":{"modified":2,"value":2}"#))
        var limits = KVReadLimits()
        limits.files = 2
        let held = try #require(HeldRoot.open(root))
        func read(retained: [String: KeyValueFiles.Cost]) throws -> KeyValueFiles.Reading {
            guard case .success(let reading)? = KeyValueFiles.read(root: held, own: "laptop.json", skippingOwn: false, cleaning: false,
                                                                   retained: retained, limits: limits) else {
                throw TestDaemonError("the folder was not read")
            }
            return reading
        }
        let first = try read(retained: [:])
        #expect(Set(first.costs.keys) == ["laptop.json", "phone.json"])
        #expect(first.changes["phone.json"] != nil && first.changes["phone.json"]! != nil)
        // The phone's file does not read now: it keeps its last content, and is not dropped.
        try FS.write(folder + "/phone.json", "{half")
        let second = try read(retained: first.costs)
        #expect(second.problems["phone.json"] != nil, "\(second.problems)")
        #expect(second.costs["phone.json"] == first.costs["phone.json"], "kept from before: \(second.costs)")
        #expect(second.changes["phone.json"] == nil, "neither read again nor dropped: \(String(describing: second.changes["phone.json"]))")
        // A third file past the bound is still not read.
        try FS.write(folder + "/tablet.json", Self.replica(device: "tablet", #""c":{"modified":3,"value":3}"#))
        let third = try read(retained: second.costs)
        #expect(third.problems["tablet.json"]?.contains("the store already has 2 files") == true, "\(third.problems)")
        #expect(Set(third.costs.keys) == ["laptop.json", "phone.json"])
    }
}
