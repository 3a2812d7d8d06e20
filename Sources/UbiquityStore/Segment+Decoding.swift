import UbiquityJSON
public import UbiquityErrors

extension Segment {
    /// Reads a segment from bytes that may be anything — a damaged file, a hostile device's —
    /// without trapping and without allocating past `limits`.
    ///
    /// Checks the header first (``SegmentHeader/init(decoding:limits:)``: truncation, format,
    /// size, checksum), then the schema version against `readerSchemaVersion`, then the body:
    /// every count against its limit and the bytes left, every index against its table, every
    /// name, string and device id, every generation (at least 1) and clock reading (within
    /// ``HLC/maxMilliseconds``), and that the last change ends where the checksum begins.
    ///
    /// - Parameter readerSchemaVersion: this device's schema version; a segment written with a
    ///   newer one is refused with ``StoreErrorCode/segmentNeedsUpgrade`` before its body is read.
    /// - Throws: a ``StoreError`` whose code says what kind of problem and whose message where.
    public init(decoding bytes: [UInt8], limits: SegmentLimits = SegmentLimits(), readerSchemaVersion: UInt32? = nil) throws(StoreError) {
        let header = try SegmentHeader(decoding: bytes, limits: limits)
        if let reader = readerSchemaVersion, header.schemaVersion > reader {
            throw StoreError(.segmentNeedsUpgrade,
                             "segment \(header.sequence) of device \(header.device) was written with schema version \(header.schemaVersion); this device has version \(reader): upgrade to import it",
                             details: ["device": .string(header.device.rawValue), "sequence": .integer(Int64(bitPattern: header.sequence)),
                                       "schemaVersion": .integer(Int64(header.schemaVersion))])
        }
        var body = BodyDecoder(reader: ByteReader(bytes, from: header.bodyOffset, to: bytes.count - Header.checksumBytes),
                               limits: limits, writer: header.device)
        let changes = try body.changes(count: header.changeCount)
        let repairs = header.format >= 2 ? try body.repairs() : []
        body.reader.context = "the segment"
        guard body.reader.remaining == 0 else {
            throw body.reader.malformed("\(body.reader.remaining) bytes follow the last \(header.format >= 2 ? "repair" : "change")")
        }
        self.device = header.device
        self.sequence = header.sequence
        self.schemaVersion = header.schemaVersion
        self.changes = changes
        self.repairs = repairs
    }

    /// The body's reader: the three tables, then the changes that refer to them.
    struct BodyDecoder {
        var reader: ByteReader
        let limits: SegmentLimits
        let writer: DeviceID
        var names: [String] = []
        var devices: [DeviceID] = []
        var rows: [RowID] = []
        var previous: Int64 = 0

        init(reader: ByteReader, limits: SegmentLimits, writer: DeviceID) {
            self.reader = reader
            self.limits = limits
            self.writer = writer
            devices = [writer]
        }

        func oversized(_ message: String, limit: Int) -> StoreError {
            StoreError(.segmentOversized, "\(reader.context): \(message) (offset \(reader.offset))",
                       details: ["offset": .integer(Int64(reader.offset)), "limit": .integer(Int64(limit))])
        }

        /// A count of items each at least `minimumBytes` long: within `limit` and within the bytes left.
        mutating func count(limit: Int, minimumBytes: Int, _ what: String) throws(StoreError) -> Int {
            let raw = try reader.varint()
            guard raw <= UInt64(limit) else { throw oversized("\(raw) \(what), more than the \(limit) allowed", limit: limit) }
            guard Int(raw) <= reader.remaining / minimumBytes else {
                throw reader.malformed("\(raw) \(what) cannot fit in the \(reader.remaining) bytes left")
            }
            return Int(raw)
        }

        mutating func changes(count: Int) throws(StoreError) -> [Change] {
            reader.context = "the name table"
            let nameCount = try self.count(limit: limits.maxNames, minimumBytes: 2, "names")
            var nameSet: Set<String> = []
            for _ in 0 ..< nameCount {
                let name = try reader.string(maxBytes: Schema.maxNameBytes, "a name")
                guard Schema.isName(name) else { throw reader.malformed("'\(name)' cannot name a table, column or relationship") }
                guard nameSet.insert(name).inserted else { throw reader.malformed("the name '\(name)' is listed twice") }
                names.append(name)
            }
            reader.context = "the device table"
            let deviceCount = try self.count(limit: limits.maxDevices, minimumBytes: 2, "devices")
            for _ in 0 ..< deviceCount {
                let length = Int(try reader.byte())
                let id = try reader.take(length)
                guard let device = DeviceID(String(decoding: id, as: UTF8.self)), device.rawValue.utf8.count == length else {
                    throw reader.malformed("a device id is not 1 to 64 of A-Z a-z 0-9 - _")
                }
                guard !devices.contains(device) else { throw reader.malformed("device \(device) is listed twice") }
                devices.append(device)
            }
            reader.context = "the row table"
            let rowCount = try self.count(limit: 2 * limits.maxChanges, minimumBytes: 16, "rows")
            var rowSet: Set<RowID> = []
            rows.reserveCapacity(rowCount)
            for _ in 0 ..< rowCount {
                let row = RowID(bytes: try reader.take(16))!
                guard rowSet.insert(row).inserted else { throw reader.malformed("row \(row) is listed twice") }
                rows.append(row)
            }
            reader.context = "the changes"
            previous = try absolute(try reader.varint())
            // Each change takes at least 6 bytes (kind, clock, name, row, generation).
            guard count <= reader.remaining / 6 else { throw reader.malformed("\(count) changes cannot fit in the \(reader.remaining) bytes left") }
            var changes: [Change] = []
            changes.reserveCapacity(count)
            for index in 0 ..< count {
                reader.item = (index + 1, count)
                changes.append(try change())
            }
            return changes
        }

        /// Format 2's repairs, after the changes: a count, then each a table (a name index), a row
        /// (a row index) and its register as varint length + the bytes of ``StoreRegisters``.
        mutating func repairs() throws(StoreError) -> [RowRepair] {
            reader.context = "the repairs"
            // Each repair takes at least 3 bytes (table, row, register length).
            let count = try self.count(limit: limits.maxChanges, minimumBytes: 3, "repairs")
            var repairs: [RowRepair] = []
            var seen: Set<RowRef> = []
            for index in 0 ..< count {
                reader.context = "repair \(index + 1) of \(count)"
                let table = try name(), row = try row()
                let length = try self.count(limit: limits.maxSegmentBytes, minimumBytes: 1, "register bytes")
                let start = reader.offset
                let register: RowState
                do throws(StoreError) {
                    register = try StoreRegisters.decodeRow(Array(try reader.take(length)), limits: limits)
                } catch {
                    throw StoreError(error.code, "\(reader.context), its register at offset \(start): \(error.message)", details: error.details)
                }
                guard register.generation >= 1 else { throw reader.malformed("a repair's generation is 0; rows start at 1") }
                guard seen.insert(RowRef(table: table, id: row)).inserted else { throw reader.malformed("row \(table)/\(row) is repaired twice") }
                repairs.append(RowRepair(table: table, row: row, register: register))
            }
            return repairs
        }

        /// Milliseconds read as a whole, checked in range.
        func absolute(_ raw: UInt64) throws(StoreError) -> Int64 {
            guard raw <= UInt64(HLC.maxMilliseconds) else { throw reader.malformed("a clock reading is after the year 9999") }
            return Int64(raw)
        }

        /// Milliseconds read as a zigzag difference from `base`, checked in range.
        func offset(_ base: Int64, by delta: Int64) throws(StoreError) -> Int64 {
            let (value, overflow) = base.addingReportingOverflow(delta)
            guard !overflow, value >= 0, value <= HLC.maxMilliseconds else {
                throw reader.malformed("a clock reading is outside 1970 to 9999")
            }
            return value
        }

        /// An index into a table of `count` entries.
        mutating func index(into count: Int, _ what: String) throws(StoreError) -> Int {
            let raw = try reader.varint()
            guard raw < UInt64(count) else { throw reader.malformed("\(what) is \(raw), but the table has \(count) entries") }
            return Int(raw)
        }

        mutating func counter() throws(StoreError) -> UInt32 {
            let raw = try reader.varint()
            guard raw <= UInt64(UInt32.max) else { throw reader.malformed("a clock counter is \(raw), more than \(UInt32.max)") }
            return UInt32(raw)
        }

        mutating func name() throws(StoreError) -> String {
            names[try index(into: names.count, "a name index")]
        }

        mutating func row() throws(StoreError) -> RowID {
            rows[try index(into: rows.count, "a row index")]
        }

        mutating func generation() throws(StoreError) -> UInt64 {
            let raw = try reader.varint()
            guard raw >= 1 else { throw reader.malformed("a generation is 0; rows start at 1") }
            return raw
        }

        /// A reading of any device: its index in the device table, then milliseconds relative to `clock`.
        mutating func reading(device index: Int, relativeTo clock: HLC) throws(StoreError) -> HLC {
            let ms = try offset(clock.milliseconds, by: try reader.zigzag())
            return HLC(milliseconds: ms, counter: try counter(), device: devices[index])
        }

        mutating func change() throws(StoreError) -> Change {
            let tag = try reader.byte()
            guard let kind = Kind(rawValue: tag) else { throw reader.malformed("unknown change kind \(tag)") }
            previous = try offset(previous, by: try reader.zigzag())
            let clock = HLC(milliseconds: previous, counter: try counter(), device: writer)
            switch kind {
            case .insert, .update:
                let table = try name(), row = try row(), generation = try generation()
                let columnCount = try reader.count(atMost: Schema.maxColumns, "a column count")
                var columns: [ColumnWrite] = []
                var seen: Set<String> = []
                for _ in 0 ..< columnCount {
                    let column = try name()
                    guard seen.insert(column).inserted else { throw reader.malformed("column '\(column)' is written twice") }
                    let value = try value()
                    var base: HLC?
                    if kind == .update {
                        let index = try index(into: devices.count + 1, "a base's device index")
                        if index > 0 { base = try reading(device: index - 1, relativeTo: clock) }
                    }
                    columns.append(ColumnWrite(column, value, base: base))
                }
                let write = RowWrite(table: table, row: row, generation: generation, clock: clock, columns: columns)
                return kind == .insert ? .insert(write) : .update(write)
            case .delete:
                let table = try name(), row = try row(), generation = try generation()
                let seenCount = try reader.count(atMost: devices.count, "a count of readings")
                var seen = VersionVector()
                for _ in 0 ..< seenCount {
                    let index = try index(into: devices.count, "a device index")
                    let r = try reading(device: index, relativeTo: clock)
                    guard seen.readings[r.device] == nil else { throw reader.malformed("device \(r.device) is named twice in a delete") }
                    seen.record(r)
                }
                return .delete(RowDeletion(table: table, row: row, generation: generation, clock: clock, seen: seen))
            case .relate, .unrelate:
                let relationship = try name()
                let from = try row(), fromGeneration = try generation()
                let to = try row(), toGeneration = try generation()
                let pair = PairChange(relationship: relationship, from: from, fromGeneration: fromGeneration,
                                      to: to, toGeneration: toGeneration, clock: clock)
                return kind == .relate ? .relate(pair) : .unrelate(pair)
            }
        }

        mutating func value() throws(StoreError) -> StoreValue {
            let tag = try reader.byte()
            guard let kind = ValueTag(rawValue: tag) else { throw reader.malformed("unknown value tag \(tag)") }
            switch kind {
            case .null: return .null
            case .string: return .string(try reader.string(maxBytes: limits.maxValueBytes, "a string"))
            case .integer: return .integer(try reader.zigzag())
            case .double:
                let d = Double(bitPattern: try reader.littleEndian(UInt64.self))
                guard d.isFinite else { throw reader.malformed("a double is not finite") }
                return .double(d)
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .date: return .date(try reader.zigzag())
            case .data:
                let length = try reader.varint()
                guard length <= UInt64(limits.maxValueBytes) else {
                    throw oversized("data of \(length) bytes, more than the \(limits.maxValueBytes) allowed", limit: limits.maxValueBytes)
                }
                return .data(Array(try reader.take(Int(length))))
            case .json:
                let start = reader.offset
                let json = try self.json(depth: 0)
                guard reader.offset - start <= limits.maxValueBytes else {
                    throw oversized("a JSON value of \(reader.offset - start) bytes, more than the \(limits.maxValueBytes) allowed", limit: limits.maxValueBytes)
                }
                return .json(json)
            }
        }

        mutating func json(depth: Int) throws(StoreError) -> JSONValue {
            let tag = try reader.byte()
            guard let kind = JSONTag(rawValue: tag) else { throw reader.malformed("unknown JSON tag \(tag)") }
            switch kind {
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .integer: return .integer(try reader.zigzag())
            case .double:
                let d = Double(bitPattern: try reader.littleEndian(UInt64.self))
                guard d.isFinite else { throw reader.malformed("a JSON number is not finite") }
                return .double(d)
            case .string: return .string(try reader.string(maxBytes: limits.maxValueBytes, "a JSON string"))
            case .array, .object:
                guard depth < limits.maxJSONDepth else {
                    throw oversized("a JSON value nests deeper than \(limits.maxJSONDepth)", limit: limits.maxJSONDepth)
                }
                let count = try self.count(limit: limits.maxValueBytes, minimumBytes: 1, "JSON items")
                if kind == .array {
                    var items: [JSONValue] = []
                    for _ in 0 ..< count { items.append(try json(depth: depth + 1)) }
                    return .array(items)
                }
                var fields: [String: JSONValue] = [:]
                var last: String?
                for _ in 0 ..< count {
                    let key = try reader.string(maxBytes: limits.maxValueBytes, "a JSON key")
                    if let last, !last.utf8.lexicographicallyPrecedes(key.utf8) {
                        throw reader.malformed("JSON keys are not in strictly increasing byte order at '\(key)'")
                    }
                    last = key
                    fields[key] = try json(depth: depth + 1)
                }
                return .object(fields)
            }
        }
    }
}
