import Testing
import UbiquityBinary
@testable import UbiquityStore

/// Format 2: a segment that carries repairs (docs/stores.md, "The segment format" and
/// "Tombstones shrink to floors").
@Suite("Repair segments: format 2, read back exactly, hostile ones refused")
struct RepairSegmentTests {
    static let laptop = Grocery.laptop, phone = Grocery.phone

    /// The laptop repairs carrots: inserted by the laptop at t0, deleted by the phone (which had
    /// seen that insert) at t0 + 1 s, edited again by the laptop at t0 + 2 s without seeing it.
    static func carrots() -> RowState {
        let insert = HLC(milliseconds: Grocery.t0, device: laptop), edit = HLC(milliseconds: Grocery.t0 + 2_000, device: laptop)
        return RowState(generation: 1, inserted: true, writes: VersionVector([edit]),
                        deletes: VersionVector([HLC(milliseconds: Grocery.t0 + 1_000, device: phone)]), deletesSaw: VersionVector([insert]),
                        columns: ["name": ColumnState(value: .string("carrots"), generation: 1, clock: insert, base: nil),
                                  "quantity": ColumnState(value: .integer(5), generation: 1, clock: edit, base: nil)])
    }

    static func segment() throws -> Segment {
        try Segment(device: laptop, sequence: 3, schemaVersion: 1, changes: [],
                    repairs: [RowRepair(table: "items", row: Grocery.id(1), register: carrots())])
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { let digits = String($0, radix: 16); return digits.count == 1 ? "0" + digits : digits }.joined()
    }

    @Test("A repair segment is format 2, reads back exactly, and has the documented bytes")
    func documentedRepairSegment() throws {
        let segment = try Self.segment()
        let bytes = segment.encoded()
        #expect(bytes[4] == 2 && bytes[5] == 0)
        #expect(try Segment(decoding: bytes) == segment)
        #expect(Self.hex(bytes) == Self.documented, "docs/stores.md shows other bytes: \(Self.hex(bytes))")
        // Without repairs a segment stays format 1, which older readers read.
        let plain = try Segment(device: Self.laptop, sequence: 1, schemaVersion: 1, changes: [])
        #expect(plain.encoded()[4] == 1)
    }

    static let documented = "5542515302000000ad00000001000000030000000000000000000000066c6170746f7001056974656d730001100000000000000100000000000000010001000068010101d0dfeab6b73300066c6170746f7001e8d7eab6b733000570686f6e650180d0eab6b73300066c6170746f7002046e616d650107636172726f74730180d0eab6b73300066c6170746f7000087175616e74697479020a01d0dfeab6b73300066c6170746f7000abe0e2f5"

    @Test("Merging a repair is a join: a floor gets the row back whole, and again changes nothing")
    func aRepairBringsAFloorBackWhole() throws {
        var state = StoreState(schema: Grocery.schema())
        var floor = Self.carrots()
        floor.floor()
        let ref = Grocery.item(Grocery.id(1))
        _ = try state.apply(try Segment(device: Self.phone, sequence: 9, schemaVersion: 1, changes: [],
                                        repairs: [RowRepair(table: "items", row: Grocery.id(1), register: floor)]))
        #expect(state.row(ref) == [:], "a floor brought back by an edit shows no columns")
        let result = try state.apply(try Self.segment())
        #expect(result.updated[ref] == ["name", "quantity"])
        #expect(state.row(ref) == ["name": .string("carrots"), "quantity": .integer(5)])
        #expect(try state.apply(try Self.segment()).isEmpty)
    }

    @Test("A repair that does not fit the schema, or whose bytes are cut or doubled, is refused")
    func hostileRepairs() throws {
        var state = StoreState(schema: Grocery.schema())
        let bad = try Segment(device: Self.laptop, sequence: 3, schemaVersion: 1, changes: [],
                              repairs: [RowRepair(table: "aisles", row: Grocery.id(1), register: Self.carrots())])
        #expect(throws: StoreError.self) { try state.apply(bad) }
        let bytes = try Self.segment().encoded()
        // The register's length made one byte longer than its bytes, resealed.
        var body = Array(bytes.dropLast(4))
        let registerBytes = StoreRegisters.encode(Self.carrots()).count
        #expect(registerBytes < 128 && Int(body[body.count - registerBytes - 1]) == registerBytes)
        body[body.count - registerBytes - 1] &+= 1
        var out = ByteWriter()
        out.append(contentsOf: body)
        out.littleEndian(CRC32.checksum(body[...]))
        #expect(throws: StoreError.self) { try Segment(decoding: out.bytes) }
    }
}
