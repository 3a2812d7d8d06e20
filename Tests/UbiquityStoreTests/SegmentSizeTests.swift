import Testing
import UbiquityJSON
import UbiquityStore
import UbiquityTesting

/// The numbers docs/stores.md quotes for the format's size, measured: a Grocery-shaped row
/// (an item with a name, a quantity, a date and a flag, tagged twice) in the binary format and
/// in the JSON lines it would otherwise have been.
@Suite("Segment size: bytes per Grocery row, binary against JSON lines")
struct SegmentSizeTests {
    /// `rows` items inserted and tagged by one device, one segment per `perSegment` rows.
    static func segments(rows: Int, perSegment: Int) throws -> [Segment] {
        var rng = SplitMix64(seed: 35)
        var laptop = StoreReplica(schema: Grocery.schema(), device: DeviceID("3f0c9a5e1d2b4c6a8e0f1a2b3c4d5e6f")!)
        let mall = Grocery.tag("mall").id, grocer = Grocery.tag("green grocer").id
        _ = try laptop.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                              .insert(table: "tags", id: nil, values: ["name": .string("green grocer")])], at: Grocery.t0)
        var segments: [Segment] = []
        var names = ["carrots", "bread", "green tea", "oat milk", "eggs"]
        for start in stride(from: 0, to: rows, by: perSegment) {
            var operations: [StoreOperation] = []
            for n in start ..< min(rows, start + perSegment) {
                let id = RowID.random(using: &rng)
                names.append(names.removeFirst())
                operations += [
                    .insert(table: "items", id: id, values: ["name": .string(names[0]), "quantity": .integer(Int64(n % 7 + 1)),
                                                             "created": .date(Grocery.t0 + Int64(n) * 1_000), "done": .bool(false)]),
                    .relate(relationship: "tags", from: id, to: mall),
                    .relate(relationship: "tags", from: id, to: grocer),
                ]
            }
            segments.append(try laptop.write(operations, at: Grocery.t0 + Int64(start) * 1_000))
        }
        return segments
    }

    /// The same changes as JSON lines, one object a change, as compact as JSONLine writes them.
    static func jsonLines(_ segment: Segment) -> Int {
        func clock(_ c: HLC) -> JSONValue { .array([.integer(c.milliseconds), .integer(Int64(c.counter))]) }
        var bytes = JSONLine.encodeLine(.object(["device": .string(segment.device.rawValue), "sequence": .integer(Int64(segment.sequence)),
                                                  "schema": .integer(Int64(segment.schemaVersion))])).count
        for change in segment.changes {
            let object: [String: JSONValue] = switch change {
            case .insert(let w), .update(let w):
                ["insert": .string(w.table), "row": .string(w.row.description), "generation": .integer(Int64(w.generation)), "clock": clock(w.clock),
                 "values": .object(Dictionary(uniqueKeysWithValues: w.columns.map { column in
                     let value: JSONValue = switch column.value {
                     case .string(let s): .string(s)
                     case .integer(let i), .date(let i): .integer(i)
                     case .bool(let b): .bool(b)
                     default: .null
                     }
                     return (column.name, value)
                 }))]
            case .relate(let p), .unrelate(let p):
                ["relate": .string(p.relationship), "from": .string(p.from.description), "fromGeneration": .integer(Int64(p.fromGeneration)),
                 "to": .string(p.to.description), "toGeneration": .integer(Int64(p.toGeneration)), "clock": clock(p.clock)]
            case .delete: [:]
            }
            bytes += JSONLine.encodeLine(.object(object)).count
        }
        return bytes + 9 // a checksum line
    }

    @Test("A Grocery row costs under 100 bytes in a batch, less than half its JSON lines")
    func bytesPerRow() throws {
        let one = try Self.segments(rows: 1, perSegment: 1).last!
        let batch = try Self.segments(rows: 1_000, perSegment: 1_000).last!
        let binaryOne = one.encoded().count, binaryBatch = Double(batch.encoded().count) / 1_000
        let jsonOne = Self.jsonLines(one), jsonBatch = Double(Self.jsonLines(batch)) / 1_000
        print("store segment size: one row alone \(binaryOne) bytes (JSON lines \(jsonOne)); in a batch of 1,000: \(binaryBatch) bytes a row (JSON lines \(jsonBatch))")
        #expect(binaryBatch < 100)
        #expect(binaryBatch * 2 < jsonBatch)
        #expect(binaryOne * 2 < jsonOne)
    }
}
