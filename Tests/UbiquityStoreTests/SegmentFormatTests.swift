import Testing
import UbiquityJSON
import UbiquityBinary
@testable import UbiquityStore
import UbiquityErrors

@Suite("Segments: bytes that read back exactly, and damaged or hostile bytes refused with the reason")
struct SegmentFormatTests {
    static let laptop = Grocery.laptop, phone = Grocery.phone, tablet = Grocery.tablet

    static func clock(_ ms: Int64, _ counter: UInt32 = 0, _ device: DeviceID = laptop) -> HLC {
        HLC(milliseconds: Grocery.t0 + ms, counter: counter, device: device)
    }

    /// Every change kind and value type, bases and readings from three devices.
    static let everything: Segment = try! Segment(device: laptop, sequence: 42, schemaVersion: 1, changes: [
        .insert(RowWrite(table: "items", row: Grocery.id(1), generation: 1, clock: clock(0), columns: [
            ColumnWrite("name", .string("carrots 🥕")), ColumnWrite("quantity", .integer(-3)), ColumnWrite("price", .double(-0.5)),
            ColumnWrite("done", .bool(true)), ColumnWrite("created", .date(-86_400_000)), ColumnWrite("photo", .data([0, 255, 7])),
            ColumnWrite("extra", .json(.object(["a": .array([.null, .bool(false), .integer(Int64.min), .double(2.5), .string("x")]), "b": .object([:])]))),
            ColumnWrite("note", .null),
        ])),
        .update(RowWrite(table: "items", row: Grocery.id(1), generation: 1, clock: clock(5, 2), columns: [
            ColumnWrite("name", .string("carrots"), base: clock(0)), ColumnWrite("quantity", .integer(Int64.max), base: clock(-9_000_000, 4, phone)),
            ColumnWrite("done", .bool(false)),
        ])),
        .relate(PairChange(relationship: "tags", from: Grocery.id(1), fromGeneration: 1, to: Grocery.tag("mall").id, toGeneration: 3, clock: clock(5, 3))),
        .unrelate(PairChange(relationship: "tags", from: Grocery.id(1), fromGeneration: 1, to: Grocery.tag("mall").id, toGeneration: 3, clock: clock(4))),
        .delete(RowDeletion(table: "items", row: Grocery.id(2), generation: 7, clock: clock(3_600_000),
                            seen: VersionVector([clock(1, 0, phone), clock(-5, 9, tablet), clock(2)]))),
    ])

    @Test("A segment reads back exactly as it was written")
    func roundTrip() throws {
        let bytes = Self.everything.encoded()
        #expect(try Segment(decoding: bytes) == Self.everything)
        let empty = try Segment(device: Self.phone, sequence: 1, schemaVersion: 3, changes: [])
        #expect(try Segment(decoding: empty.encoded()) == empty)
    }

    @Test("The header is laid out as docs/stores.md says, byte by byte")
    func header() throws {
        let bytes = Self.everything.encoded()
        func le(_ at: Int, _ count: Int) -> UInt64 { (0..<count).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        #expect(Array(bytes[0..<4]) == Array("UBQS".utf8))
        #expect(le(4, 2) == 1)
        #expect(le(6, 2) == 0)
        #expect(le(8, 4) == UInt64(bytes.count))
        #expect(le(12, 4) == 1)
        #expect(le(16, 8) == 42)
        #expect(le(24, 4) == 5)
        #expect(bytes[28] == 6)
        #expect(Array(bytes[29..<35]) == Array("laptop".utf8))
        #expect(le(bytes.count - 4, 4) == UInt64(CRC32.checksum(bytes[0 ..< bytes.count - 4])))
        let header = try SegmentHeader(decoding: bytes)
        #expect(header.device == Self.laptop && header.sequence == 42 && header.schemaVersion == 1 && header.changeCount == 5)
    }

    @Test("The documented example segment has the documented bytes")
    func documentedExample() throws {
        // docs/stores.md, "An example": laptop's first segment, carrots tagged mall.
        let carrots = RowID("00000000000000000000000000000001")!
        let segment = try Segment(device: DeviceID("laptop")!, sequence: 1, schemaVersion: 1, changes: [
            .insert(RowWrite(table: "items", row: carrots, generation: 1, clock: Self.clock(0), columns: [ColumnWrite("name", .string("carrots"))])),
            .insert(RowWrite(table: "tags", row: Grocery.tag("mall").id, generation: 1, clock: Self.clock(0, 1), columns: [ColumnWrite("name", .string("mall"))])),
            .relate(PairChange(relationship: "tags", from: carrots, fromGeneration: 1, to: Grocery.tag("mall").id, toGeneration: 1, clock: Self.clock(0, 2))),
        ])
        let hex = segment.encoded().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == SegmentFormatTests.documentedHex, "\(hex)")
    }

    /// The example's bytes as docs/stores.md annotates them, part by part.
    static let documentedHex = [
        "55425153", "0100", "0000", "87000000", "01000000", "0100000000000000", "03000000", "06", "6c6170746f70",
        "03", "05", "6974656d73", "04", "6e616d65", "04", "74616773",
        "00",
        "02", "00000000000000000000000000000001", "98471ebd5834f35ea8bba0281d3c03c2",
        "80d0eab6b733",
        "01", "00", "00", "00", "00", "01", "01", "01", "01", "07", "636172726f7473",
        "01", "00", "01", "02", "01", "01", "01", "01", "01", "04", "6d616c6c",
        "04", "00", "02", "02", "00", "01", "01", "01",
        "df97cfba",
    ].joined()

    @Test("Every cut of a segment short of its end is reported truncated")
    func truncated() {
        let bytes = Self.everything.encoded()
        for length in 0 ..< bytes.count {
            #expect(throws: StoreError.self) { try Segment(decoding: Array(bytes.prefix(length))) }
            do {
                _ = try Segment(decoding: Array(bytes.prefix(length)))
            } catch {
                #expect(error.code == .segmentTruncated, "cut at \(length): \(error)")
            }
        }
    }

    @Test("Every single flipped bit is caught: by the checksum, or as a bad magic, format or length")
    func flipped() {
        let bytes = Self.everything.encoded()
        for index in 0 ..< bytes.count {
            for bit in 0 ..< 8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                do {
                    _ = try Segment(decoding: damaged)
                    Issue.record("accepted with bit \(bit) of byte \(index) flipped")
                } catch {
                    let expected: Set<StoreErrorCode> = switch index {
                    case 0..<4: [.segmentMalformed]
                    case 4..<6: [.segmentFutureFormat, .segmentMalformed]
                    case 8..<12: [.segmentTruncated, .segmentMalformed, .segmentOversized]
                    default: [.segmentChecksum]
                    }
                    #expect(expected.contains(error.code), "bit \(bit) of byte \(index): \(error)")
                }
            }
        }
    }

    /// The segment with its CRC-32 made right again after `edit`: what a hostile device can send.
    static func resealed(_ bytes: [UInt8], _ edit: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes = bytes
        edit(&bytes)
        let length = bytes.count
        for i in 0..<4 { bytes[8 + i] = UInt8(truncatingIfNeeded: UInt32(length) >> (8 * UInt32(i))) }
        let crc = CRC32.checksum(bytes[0 ..< length - 4])
        for i in 0..<4 { bytes[length - 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return bytes
    }

    static let refusals: [(String, StoreErrorCode, String, SegmentLimits, UInt32?, @Sendable ([UInt8]) -> [UInt8])] = [
        ("not a segment", .segmentMalformed, "not 'UBQS'", SegmentLimits(), nil, { _ in Array("{\"json\":1}".utf8) }),
        ("future format", .segmentFutureFormat, "format 3", SegmentLimits(), nil, { b in var b = b; b[4] = 3; return b }),
        ("format 0", .segmentMalformed, "format 0", SegmentLimits(), nil, { b in var b = b; b[4] = 0; return b }),
        ("bytes after", .segmentMalformed, "bytes after the", SegmentLimits(), nil, { $0 + [0] }),
        ("newer schema", .segmentNeedsUpgrade, "written with schema version 1; this device has version 0", SegmentLimits(), 0, { $0 }),
        ("too big", .segmentOversized, "more than the 100 allowed", SegmentLimits(maxSegmentBytes: 100), nil, { $0 }),
        ("too many changes", .segmentOversized, "5 changes, more than the 4 allowed", SegmentLimits(maxChanges: 4), nil, { $0 }),
        ("value too big", .segmentOversized, "more than the 8 allowed", SegmentLimits(maxValueBytes: 8), nil, { $0 }),
        ("JSON too deep", .segmentOversized, "nests deeper than 1", SegmentLimits(maxJSONDepth: 1), nil, { $0 }),
        ("too many names", .segmentOversized, "names, more than the 2 allowed", SegmentLimits(maxNames: 2), nil, { $0 }),
        ("too many devices", .segmentOversized, "devices, more than the 1 allowed", SegmentLimits(maxDevices: 1), nil, { $0 }),
        ("flags", .segmentMalformed, "flags", SegmentLimits(), nil, { b in resealed(b) { $0[6] = 1 } }),
        ("device id", .segmentMalformed, "device id", SegmentLimits(), nil, { b in resealed(b) { $0[29] = UInt8(ascii: "/") } }),
        ("trailing body", .segmentMalformed, "follow the last change", SegmentLimits(), nil, { b in resealed(b) { $0.insert(0, at: $0.count - 4) } }),
        ("change count", .segmentMalformed, "change 6 of 6", SegmentLimits(), nil, { b in resealed(b) { $0[24] = 6 } }),
        ("schema 0", .segmentMalformed, "schema version 0", SegmentLimits(), nil, { b in resealed(b) { $0[12] = 0 } }),
    ]

    @Test("Damaged, hostile and oversized segments are refused, saying what was wrong", arguments: refusals.indices)
    func refused(_ index: Int) {
        let (what, code, phrase, limits, reader, make) = Self.refusals[index]
        let bytes = make(Self.everything.encoded())
        do {
            _ = try Segment(decoding: bytes, limits: limits, readerSchemaVersion: reader)
            Issue.record("accepted: \(what)")
        } catch {
            #expect(error.code == code, "\(what): \(error)")
            #expect(error.message.contains(phrase), "\(what): \(error.message)")
        }
    }

    @Test("A well-formed segment that does not fit the schema is refused naming the change")
    func schemaMismatch() throws {
        let bad = try Segment(device: Self.phone, sequence: 9, schemaVersion: 1, changes: [
            .insert(RowWrite(table: "items", row: Grocery.id(1), generation: 1, clock: Self.clock(0, 0, Self.phone), columns: [ColumnWrite("name", .string("a"))])),
            .update(RowWrite(table: "items", row: Grocery.id(1), generation: 1, clock: Self.clock(1, 0, Self.phone), columns: [ColumnWrite("aisle", .integer(4))])),
        ])
        var state = StoreState(schema: Grocery.schema())
        #expect {
            _ = try state.apply(bad)
        } throws: { error in
            let error = error as! StoreError
            return error.code == .segmentDoesNotMatchSchema && error.message == "segment 9 of device phone, change 2: table 'items' has no column 'aisle'"
        }
        #expect(state == StoreState(schema: Grocery.schema()), "nothing of the segment was applied")

        let squatter = try Segment(device: Self.phone, sequence: 10, schemaVersion: 1, changes: [
            .insert(RowWrite(table: "tags", row: Grocery.id(5), generation: 1, clock: Self.clock(0, 0, Self.phone), columns: [ColumnWrite("name", .string("mall"))])),
        ])
        #expect(throws: StoreError.self) { try state.apply(squatter) }
        let wrongType = try Segment(device: Self.phone, sequence: 11, schemaVersion: 1, changes: [
            .insert(RowWrite(table: "items", row: Grocery.id(1), generation: 1, clock: Self.clock(0, 0, Self.phone), columns: [ColumnWrite("name", .integer(1))])),
        ])
        #expect(throws: StoreError.self) { try state.apply(wrongType) }
    }

    @Test("A segment can only hold its own device's changes, valid names and generations")
    func constructed() {
        let foreign = Change.delete(RowDeletion(table: "items", row: Grocery.id(1), generation: 1, clock: Self.clock(0, 0, Self.phone), seen: VersionVector()))
        #expect(throws: StoreError.self) { try Segment(device: Self.laptop, sequence: 1, schemaVersion: 1, changes: [foreign]) }
        let zero = Change.delete(RowDeletion(table: "items", row: Grocery.id(1), generation: 0, clock: Self.clock(0), seen: VersionVector()))
        #expect(throws: StoreError.self) { try Segment(device: Self.laptop, sequence: 1, schemaVersion: 1, changes: [zero]) }
        let badName = Change.delete(RowDeletion(table: "it ems", row: Grocery.id(1), generation: 1, clock: Self.clock(0), seen: VersionVector()))
        #expect(throws: StoreError.self) { try Segment(device: Self.laptop, sequence: 1, schemaVersion: 1, changes: [badName]) }
        let twice = Change.update(RowWrite(table: "items", row: Grocery.id(1), generation: 1, clock: Self.clock(0),
                                           columns: [ColumnWrite("name", .string("a")), ColumnWrite("name", .string("b"))]))
        #expect(throws: StoreError.self) { try Segment(device: Self.laptop, sequence: 1, schemaVersion: 1, changes: [twice]) }
        let baseOnInsert = Change.insert(RowWrite(table: "items", row: Grocery.id(1), generation: 1, clock: Self.clock(0),
                                                  columns: [ColumnWrite("name", .string("a"), base: Self.clock(-1))]))
        #expect(throws: StoreError.self) { try Segment(device: Self.laptop, sequence: 1, schemaVersion: 1, changes: [baseOnInsert]) }
    }
}
