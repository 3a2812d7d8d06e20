import UbiquityBinary
import UbiquityJSON

extension Segment {
    /// Offsets of the fixed header (format 1), little-endian.
    enum Header {
        static let version = 4, flags = 6, length = 8, schema = 12, sequence = 16, count = 24, deviceLength = 28
        /// The header up to the device id.
        static let fixedBytes = 29
        static let checksumBytes = 4
    }

    /// Change kinds, the first byte of each change.
    enum Kind: UInt8 {
        case insert = 1, update = 2, delete = 3, relate = 4, unrelate = 5
    }

    /// Value tags, the first byte of each value.
    enum ValueTag: UInt8 {
        case null = 0, string = 1, integer = 2, double = 3, `false` = 4, `true` = 5, date = 6, data = 7, json = 8
    }

    /// JSON value tags, inside a JSON column's value.
    enum JSONTag: UInt8 {
        case null = 0, `false` = 1, `true` = 2, integer = 3, double = 4, string = 5, array = 6, object = 7
    }

    /// The segment's bytes: the fixed header, the name, device and row tables, the changes, and
    /// the CRC-32 of everything before it (docs/stores.md, "The segment format").
    public func encoded() -> [UInt8] {
        var tables = Tables(writer: device)
        for change in changes { tables.note(change) }
        for repair in repairs {
            tables.name(repair.table)
            tables.row(repair.row)
        }

        var out = ByteWriter()
        out.append(contentsOf: Segment.magic)
        out.littleEndian(format)
        out.littleEndian(UInt16(0))
        out.littleEndian(UInt32(0)) // the length, patched below
        out.littleEndian(schemaVersion)
        out.littleEndian(sequence)
        out.littleEndian(UInt32(truncatingIfNeeded: changes.count))
        out.byte(UInt8(device.rawValue.utf8.count))
        out.append(contentsOf: device.rawValue.utf8)

        out.varint(tables.names.count)
        for name in tables.names { out.lengthPrefixed(name.utf8) }
        out.varint(tables.devices.count - 1)
        for other in tables.devices.dropFirst() {
            out.byte(UInt8(other.rawValue.utf8.count))
            out.append(contentsOf: other.rawValue.utf8)
        }
        out.varint(tables.rows.count)
        for row in tables.rows { out.append(contentsOf: row.bytes) }

        var previous = changes.first?.clock.milliseconds ?? 0
        out.varint(UInt64(previous))
        for change in changes {
            let clock = change.clock
            func stamp(_ kind: Kind) {
                out.byte(kind.rawValue)
                out.zigzag(clock.milliseconds - previous)
                out.varint(UInt64(clock.counter))
                previous = clock.milliseconds
            }
            func reading(_ reading: HLC) {
                out.varint(tables.deviceIndex[reading.device]!)
                out.zigzag(reading.milliseconds - clock.milliseconds)
                out.varint(UInt64(reading.counter))
            }
            switch change {
            case .insert(let w), .update(let w):
                let isInsert = if case .insert = change { true } else { false }
                stamp(isInsert ? .insert : .update)
                out.varint(tables.nameIndex[w.table]!)
                out.varint(tables.rowIndex[w.row]!)
                out.varint(w.generation)
                out.varint(w.columns.count)
                for column in w.columns {
                    out.varint(tables.nameIndex[column.name]!)
                    Segment.write(column.value, to: &out)
                    if !isInsert {
                        if let base = column.base {
                            out.varint(tables.deviceIndex[base.device]! + 1)
                            out.zigzag(base.milliseconds - clock.milliseconds)
                            out.varint(UInt64(base.counter))
                        } else {
                            out.varint(0)
                        }
                    }
                }
            case .delete(let d):
                stamp(.delete)
                out.varint(tables.nameIndex[d.table]!)
                out.varint(tables.rowIndex[d.row]!)
                out.varint(d.generation)
                let seen = d.seen.sorted
                out.varint(seen.count)
                for r in seen { reading(r) }
            case .relate(let p), .unrelate(let p):
                let isRelate = if case .relate = change { true } else { false }
                stamp(isRelate ? .relate : .unrelate)
                out.varint(tables.nameIndex[p.relationship]!)
                out.varint(tables.rowIndex[p.from]!)
                out.varint(p.fromGeneration)
                out.varint(tables.rowIndex[p.to]!)
                out.varint(p.toGeneration)
            }
        }
        if format >= 2 {
            out.varint(repairs.count)
            for repair in repairs {
                out.varint(tables.nameIndex[repair.table]!)
                out.varint(tables.rowIndex[repair.row]!)
                out.lengthPrefixed(StoreRegisters.encode(repair.register))
            }
        }
        out.patch(UInt32(truncatingIfNeeded: out.bytes.count + Header.checksumBytes), at: Header.length)
        out.littleEndian(CRC32.checksum(out.bytes[...]))
        return out.bytes
    }

    static func write(_ value: StoreValue, to out: inout ByteWriter) {
        switch value {
        case .null: out.byte(ValueTag.null.rawValue)
        case .string(let s):
            out.byte(ValueTag.string.rawValue)
            out.lengthPrefixed(s.utf8)
        case .integer(let i):
            out.byte(ValueTag.integer.rawValue)
            out.zigzag(i)
        case .double(let d):
            out.byte(ValueTag.double.rawValue)
            out.littleEndian(d.bitPattern)
        case .bool(let b): out.byte(b ? ValueTag.true.rawValue : ValueTag.false.rawValue)
        case .date(let ms):
            out.byte(ValueTag.date.rawValue)
            out.zigzag(ms)
        case .data(let bytes):
            out.byte(ValueTag.data.rawValue)
            out.lengthPrefixed(bytes)
        case .json(let json):
            out.byte(ValueTag.json.rawValue)
            write(json, to: &out)
        }
    }

    /// JSON in the same spirit: a tag, then the value; an object's keys in byte order, so one
    /// value has one encoding.
    static func write(_ json: JSONValue, to out: inout ByteWriter) {
        switch json {
        case .null: out.byte(JSONTag.null.rawValue)
        case .bool(let b): out.byte(b ? JSONTag.true.rawValue : JSONTag.false.rawValue)
        case .integer(let i):
            out.byte(JSONTag.integer.rawValue)
            out.zigzag(i)
        case .double(let d):
            out.byte(JSONTag.double.rawValue)
            out.littleEndian(d.bitPattern)
        case .string(let s):
            out.byte(JSONTag.string.rawValue)
            out.lengthPrefixed(s.utf8)
        case .array(let items):
            out.byte(JSONTag.array.rawValue)
            out.varint(items.count)
            for item in items { write(item, to: &out) }
        case .object(let fields):
            out.byte(JSONTag.object.rawValue)
            out.varint(fields.count)
            for key in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                out.lengthPrefixed(key.utf8)
                write(fields[key]!, to: &out)
            }
        }
    }

    /// The segment's tables, each entry in order of first use: names (tables, columns,
    /// relationships), devices (the writer first, then those named by bases and deletes'
    /// readings) and row ids; changes refer to them by index.
    private struct Tables {
        var names: [String] = [], nameIndex: [String: Int] = [:]
        var devices: [DeviceID], deviceIndex: [DeviceID: Int]
        var rows: [RowID] = [], rowIndex: [RowID: Int] = [:]

        init(writer: DeviceID) {
            devices = [writer]
            deviceIndex = [writer: 0]
        }

        mutating func name(_ name: String) {
            if nameIndex[name] == nil { nameIndex[name] = names.count; names.append(name) }
        }
        mutating func device(_ device: DeviceID) {
            if deviceIndex[device] == nil { deviceIndex[device] = devices.count; devices.append(device) }
        }
        mutating func row(_ row: RowID) {
            if rowIndex[row] == nil { rowIndex[row] = rows.count; rows.append(row) }
        }

        mutating func note(_ change: Change) {
            switch change {
            case .insert(let w), .update(let w):
                name(w.table)
                row(w.row)
                for column in w.columns {
                    name(column.name)
                    if let base = column.base { device(base.device) }
                }
            case .delete(let d):
                name(d.table)
                row(d.row)
                for reading in d.seen.sorted { device(reading.device) }
            case .relate(let p), .unrelate(let p):
                name(p.relationship)
                row(p.from)
                row(p.to)
            }
        }
    }
}
