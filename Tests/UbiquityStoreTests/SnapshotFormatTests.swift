import Testing
import UbiquityStore

/// The snapshot format as docs/stores.md ("Snapshots and compaction") shows it, byte by byte.
@Suite("Snapshot format")
struct SnapshotFormatTests {
    @Test("The documented example snapshot has the documented bytes, and reads back")
    func documentedExample() throws {
        // The laptop's snapshot after its first segment (docs/stores.md, "An example").
        let carrots = RowID("00000000000000000000000000000001")!
        let laptop = DeviceID("laptop")!
        var replica = StoreReplica(schema: Grocery.schema(), device: laptop)
        let made = try replica.commit([
            .insert(table: "items", id: carrots, values: ["name": .string("carrots")]),
            .insert(table: "tags", id: nil, values: ["name": .string("mall")]),
            .relate(relationship: "tags", from: carrots, to: Grocery.tag("mall").id),
        ], wall: Grocery.t0)
        #expect(made?.segment.encoded().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() == SegmentFormatTests.documentedHex)
        let snapshot = try Snapshot(device: laptop, sequence: 1, clock: replica.clock.latest, watermarks: [laptop: 1], state: replica.state)
        let bytes = snapshot.encoded()
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == Self.documentedHex, "\(hex)")
        #expect(try Snapshot(decoding: bytes, schema: Grocery.schema()) == snapshot)
    }

    /// The example's bytes as docs/stores.md annotates them, part by part.
    static let documentedHex = [
        "5542514e", "0100", "0000", "1901000000000000", "01000000", "0100000000000000", "06", "6c6170746f70",
        "80d0eab6b733", "02",
        "01", "06", "6c6170746f70", "01",
        "02", "05", "6974656d73", "04", "74616773",
        "02",
        "00", "00000000000000000000000000000001", "32",
        "01", "01", "01", "80d0eab6b733", "02", "06", "6c6170746f70", "00", "00",
        "01", "04", "6e616d65", "01", "07", "636172726f7473", "01", "80d0eab6b733", "00", "06", "6c6170746f70", "00",
        "01", "98471ebd5834f35ea8bba0281d3c03c2", "2f",
        "01", "01", "01", "80d0eab6b733", "02", "06", "6c6170746f70", "00", "00",
        "01", "04", "6e616d65", "01", "04", "6d616c6c", "01", "80d0eab6b733", "01", "06", "6c6170746f70", "00",
        "01",
        "01", "00000000000000000000000000000001", "98471ebd5834f35ea8bba0281d3c03c2", "11",
        "01", "01", "01", "80d0eab6b733", "02", "06", "6c6170746f70",
        "32ee4ca777d4fca25dbef804ec2f74ec0d2842837413ea550308fea247d4c1c5",
    ].joined()
}
