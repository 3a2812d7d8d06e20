public import UbiquityErrors

extension Snapshot {
    /// Reads a snapshot from bytes that may be anything — a damaged file, a hostile device's —
    /// without trapping and without allocating past `limits`; checks, in this order: the magic
    /// number, the format, the size against the limit, the announced length against the bytes,
    /// the SHA-256, the header's fields, the schema version against `schema`'s, then the body
    /// (every count, index, name, device id, register and value, and that it ends where the
    /// checksum begins) and that every register fits `schema`.
    ///
    /// The same codes as a segment's problems: ``StoreErrorCode/segmentMalformed``,
    /// ``StoreErrorCode/segmentTruncated``, ``StoreErrorCode/segmentFutureFormat``,
    /// ``StoreErrorCode/segmentOversized``, ``StoreErrorCode/segmentChecksum``,
    /// ``StoreErrorCode/segmentNeedsUpgrade`` (written with a newer schema) and
    /// ``StoreErrorCode/segmentDoesNotMatchSchema``, each message starting "snapshot".
    public init(decoding bytes: [UInt8], schema: Schema, limits: SnapshotLimits = SnapshotLimits()) throws(StoreError) {
        typealias H = Header
        func le<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, at offset: Int) -> T {
            var value: T = 0
            for i in 0 ..< T.bitWidth / 8 { value |= T(bytes[offset + i]) << (8 * i) }
            return value
        }
        func fail(_ code: StoreErrorCode, _ message: String) -> StoreError { StoreError(code, "snapshot: " + message) }
        guard Snapshot.magic.starts(with: bytes.prefix(4)), !bytes.isEmpty else {
            throw fail(.segmentMalformed, "this is not a snapshot: it does not start with 'UBQN'")
        }
        guard bytes.count >= H.fixedBytes else { throw fail(.segmentTruncated, "it ends after \(bytes.count) bytes, inside its header") }
        let format = le(UInt16.self, at: H.version)
        guard format <= Snapshot.formatVersion else {
            throw fail(.segmentFutureFormat, "it is in format \(format); this version reads format \(Snapshot.formatVersion) and older")
        }
        guard format >= 1 else { throw fail(.segmentMalformed, "it claims format 0, which never existed") }
        guard bytes.count <= limits.maxSnapshotBytes else {
            throw fail(.segmentOversized, "it is \(bytes.count) bytes, more than the \(limits.maxSnapshotBytes) allowed")
        }
        let length = le(UInt64.self, at: H.length)
        guard length <= UInt64(limits.maxSnapshotBytes) else {
            throw fail(.segmentOversized, "it announces \(length) bytes, more than the \(limits.maxSnapshotBytes) allowed")
        }
        guard UInt64(bytes.count) >= length else { throw fail(.segmentTruncated, "it has \(bytes.count) of the \(length) bytes its header announces") }
        guard UInt64(bytes.count) == length else { throw fail(.segmentMalformed, "\(UInt64(bytes.count) - length) bytes follow the \(length) its header announces") }
        let idLength = Int(bytes[H.deviceLength])
        guard bytes.count >= H.fixedBytes + idLength + H.checksumBytes else { throw fail(.segmentTruncated, "it ends inside its header") }
        let sealed = bytes.count - H.checksumBytes
        guard SHA256.digest(Array(bytes[..<sealed])) == Array(bytes[sealed...]) else {
            throw fail(.segmentChecksum, "its SHA-256 does not match its bytes: damaged on disk or in transit")
        }
        guard le(UInt16.self, at: H.flags) == 0 else { throw fail(.segmentMalformed, "its flags are not 0") }
        let idBytes = bytes[H.fixedBytes ..< H.fixedBytes + idLength]
        guard DeviceID.isValid(idBytes), let device = DeviceID(String(decoding: idBytes, as: UTF8.self)) else {
            throw fail(.segmentMalformed, "its device id is not valid")
        }
        let schemaVersion = le(UInt32.self, at: H.schemaVersion), sequence = le(UInt64.self, at: H.sequence)
        guard schemaVersion >= 1, sequence >= 1 else { throw fail(.segmentMalformed, "its schema version or sequence is 0") }
        guard schemaVersion <= schema.version else {
            throw StoreError(.segmentNeedsUpgrade,
                             "snapshot \(sequence) of device \(device) was written with schema version \(schemaVersion); this device has version \(schema.version)",
                             details: ["device": .string(device.rawValue), "sequence": .integer(Int64(bitPattern: sequence)),
                                       "schemaVersion": .integer(Int64(schemaVersion))])
        }

        var body = Segment.BodyDecoder(reader: ByteReader(bytes, from: H.fixedBytes + idLength, to: sealed),
                                       limits: SegmentLimits(maxSegmentBytes: limits.maxSnapshotBytes), writer: device)
        body.reader.context = "snapshot \(sequence) of device \(device)"
        let clock = HLC(milliseconds: try body.absolute(try body.reader.varint()), counter: try body.counter(), device: device)
        var watermarks: [DeviceID: UInt64] = [:]
        for _ in 0 ..< (try body.count(limit: limits.maxDevices, minimumBytes: 3, "watermarks")) {
            let ids = try body.reader.take(Int(try body.reader.byte()))
            guard DeviceID.isValid(ids), let other = DeviceID(String(decoding: ids, as: UTF8.self)) else {
                throw body.reader.malformed("a watermark's device id is not valid")
            }
            guard watermarks[other] == nil else { throw body.reader.malformed("device \(other) has two watermarks") }
            watermarks[other] = try body.reader.varint()
        }
        guard watermarks[device] == sequence else {
            throw body.reader.malformed("its own watermark is \(watermarks[device].map(String.init) ?? "missing"), not its sequence \(sequence)")
        }
        var names: [String] = []
        for _ in 0 ..< (try body.count(limit: limits.maxNames, minimumBytes: 2, "names")) {
            let name = try body.reader.string(maxBytes: Schema.maxNameBytes, "a name")
            guard !names.contains(name) else { throw body.reader.malformed("the name '\(name)' is listed twice") }
            names.append(name)
        }
        func doesNotFit(_ message: String) -> StoreError {
            StoreError(.segmentDoesNotMatchSchema, "snapshot \(sequence) of device \(device): \(message)",
                       details: ["device": .string(device.rawValue), "sequence": .integer(Int64(bitPattern: sequence))])
        }
        var rows: [RowRef: RowState] = [:]
        for _ in 0 ..< (try body.count(limit: Int.max, minimumBytes: 19, "rows")) {
            let name = names[try body.index(into: names.count, "a table")]
            guard let table = schema.table(name) else { throw doesNotFit("there is no table '\(name)'") }
            let id = try Self.rowID(&body)
            let register = Array(try body.reader.take(try body.count(limit: Int.max, minimumBytes: 1, "register bytes")))
            let row = try StoreRegisters.decodeRow(register)
            for (column, state) in row.columns {
                do throws(StoreError) { try schema.check(state.value, in: table, column: column) } catch { throw doesNotFit("row \(name)/\(id): \(error.message)") }
            }
            let ref = RowRef(table: name, id: id)
            guard rows.updateValue(row, forKey: ref) == nil else { throw body.reader.malformed("row \(ref) is listed twice") }
        }
        var pairs: [PairKey: PairState] = [:]
        for _ in 0 ..< (try body.count(limit: Int.max, minimumBytes: 35, "pairs")) {
            let name = names[try body.index(into: names.count, "a relationship")]
            guard schema.relationship(name) != nil else { throw doesNotFit("there is no relationship '\(name)'") }
            let from = try Self.rowID(&body), to = try Self.rowID(&body)
            let register = Array(try body.reader.take(try body.count(limit: Int.max, minimumBytes: 1, "register bytes")))
            let key = PairKey(relationship: name, from: from, to: to)
            guard pairs.updateValue(try StoreRegisters.decodePair(register), forKey: key) == nil else {
                throw body.reader.malformed("a pair of '\(name)' is listed twice")
            }
        }
        guard body.reader.remaining == 0 else { throw body.reader.malformed("\(body.reader.remaining) bytes follow the last pair") }
        self.device = device
        self.sequence = sequence
        self.schemaVersion = schemaVersion
        self.clock = clock
        self.watermarks = watermarks
        self.state = StoreState(schema: schema, rows: rows, pairs: pairs)
    }

    private static func rowID(_ body: inout Segment.BodyDecoder) throws(StoreError) -> RowID {
        guard let id = RowID(bytes: try body.reader.take(16)) else { throw body.reader.malformed("a row id is not 16 bytes") }
        return id
    }
}
