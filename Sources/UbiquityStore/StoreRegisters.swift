import UbiquityBinary
public import UbiquityErrors

/// A row's and a pair's merge registers as bytes: what the daemon's SQLite cache keeps beside
/// each row so that it can go on merging after a restart exactly as ``StoreState`` would have.
///
/// The same bytes are a snapshot's registers (``Snapshot``), which travel between devices: this
/// format is part of snapshot format 1, and changing it means a new snapshot format version.
/// Decoding checks every byte — a damaged cache file or a hostile snapshot must not make the
/// daemon trap.
///
/// Values are written as in a segment (``Segment/write(_:to:)``); a reading is varint
/// milliseconds, varint counter, and its device as 1 byte length + ASCII.
public enum StoreRegisters {
    /// The bytes of `row`'s register.
    public static func encode(_ row: RowState) -> [UInt8] {
        var out = ByteWriter(capacity: 64 + 48 * row.columns.count)
        out.varint(row.generation)
        out.byte(row.inserted ? 1 : 0)
        for vector in [row.writes, row.deletes, row.deletesSaw] { write(vector, to: &out) }
        out.varint(row.columns.count)
        for (name, column) in row.columns.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            out.lengthPrefixed(Array(name.utf8))
            Segment.write(column.value, to: &out)
            out.varint(column.generation)
            write(column.clock, to: &out)
            if let base = column.base { out.byte(1); write(base, to: &out) } else { out.byte(0) }
        }
        return out.bytes
    }

    /// A row's register from ``encode(_:)-(RowState)``'s bytes.
    ///
    /// - Throws: ``StoreErrorCode/segmentMalformed`` naming the offset, for bytes it did not write.
    public static func decodeRow(_ bytes: [UInt8], limits: SegmentLimits = SegmentLimits()) throws(StoreError) -> RowState {
        var body = Segment.BodyDecoder(reader: ByteReader(bytes, from: 0, to: bytes.count), limits: limits, writer: placeholder)
        body.reader.context = "a row register"
        let generation = try body.reader.varint()
        let inserted = try flag(&body.reader)
        let writes = try vector(&body), deletes = try vector(&body), deletesSaw = try vector(&body)
        let count = try body.count(limit: 256, minimumBytes: 4, "columns")
        var columns: [String: ColumnState] = [:]
        for _ in 0..<count {
            let name = try body.reader.string(maxBytes: Schema.maxNameBytes, "a column name")
            let value = try body.value()
            let columnGeneration = try body.reader.varint()
            let clock = try reading(&body)
            let base = try flag(&body.reader) ? try reading(&body) : nil
            columns[name] = ColumnState(value: value, generation: columnGeneration, clock: clock, base: base)
        }
        guard body.reader.remaining == 0 else { throw body.reader.malformed("bytes follow the register") }
        return RowState(generation: generation, inserted: inserted, writes: writes, deletes: deletes, deletesSaw: deletesSaw, columns: columns)
    }

    /// The bytes of a pair's register.
    public static func encode(_ pair: PairState) -> [UInt8] {
        var out = ByteWriter()
        out.byte(pair.present ? 1 : 0)
        out.varint(pair.fromGeneration)
        out.varint(pair.toGeneration)
        write(pair.clock, to: &out)
        return out.bytes
    }

    /// A pair's register from ``encode(_:)-(PairState)``'s bytes.
    public static func decodePair(_ bytes: [UInt8]) throws(StoreError) -> PairState {
        var body = Segment.BodyDecoder(reader: ByteReader(bytes, from: 0, to: bytes.count), limits: SegmentLimits(), writer: placeholder)
        body.reader.context = "a pair register"
        let present = try flag(&body.reader)
        let from = try body.reader.varint(), to = try body.reader.varint()
        let clock = try reading(&body)
        guard body.reader.remaining == 0 else { throw body.reader.malformed("bytes follow the register") }
        return PairState(present: present, fromGeneration: from, toGeneration: to, clock: clock)
    }

    // The body decoder wants a writer; registers name every device explicitly.
    private static let placeholder = DeviceID("register")!

    private static func write(_ reading: HLC, to out: inout ByteWriter) {
        out.varint(UInt64(reading.milliseconds))
        out.varint(UInt64(reading.counter))
        out.byte(UInt8(reading.device.rawValue.utf8.count))
        out.append(contentsOf: reading.device.rawValue.utf8)
    }

    private static func write(_ vector: VersionVector, to out: inout ByteWriter) {
        let readings = vector.sorted
        out.varint(readings.count)
        for reading in readings { write(reading, to: &out) }
    }

    private static func flag(_ reader: inout ByteReader) throws(StoreError) -> Bool {
        switch try reader.byte() {
        case 0: false
        case 1: true
        case let other: throw reader.malformed("a flag is \(other)")
        }
    }

    private static func reading(_ body: inout Segment.BodyDecoder) throws(StoreError) -> HLC {
        let ms = try body.absolute(try body.reader.varint())
        let counter = try body.counter()
        let length = Int(try body.reader.byte())
        let bytes = try body.reader.take(length)
        guard DeviceID.isValid(bytes), let device = DeviceID(String(decoding: bytes, as: UTF8.self)) else {
            throw body.reader.malformed("a device id is not valid")
        }
        return HLC(milliseconds: ms, counter: counter, device: device)
    }

    private static func vector(_ body: inout Segment.BodyDecoder) throws(StoreError) -> VersionVector {
        let count = try body.count(limit: 1_024, minimumBytes: 4, "readings")
        var readings: [HLC] = []
        for _ in 0..<count { readings.append(try reading(&body)) }
        return VersionVector(readings)
    }
}
