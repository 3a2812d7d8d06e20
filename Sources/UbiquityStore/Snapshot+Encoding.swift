import UbiquityBinary

extension Snapshot {
    /// The snapshot's bytes: the fixed header, the clock, the watermarks, the name table, every
    /// row register and pair register, and the SHA-256 of everything before (docs/stores.md,
    /// "Snapshots"). The same state always gives the same bytes.
    public func encoded() -> [UInt8] {
        var body = ByteWriter()
        body.varint(UInt64(clock.milliseconds))
        body.varint(clock.counter)
        let marks = watermarks.sorted { $0.key < $1.key }
        body.varint(marks.count)
        for (device, sequence) in marks {
            body.byte(UInt8(device.rawValue.utf8.count))
            body.append(contentsOf: device.rawValue.utf8)
            body.varint(sequence)
        }
        let rows = state.rowRegisters, pairs = state.pairRegisters
        var names: [String] = [], index: [String: Int] = [:]
        for name in rows.map(\.ref.table) + pairs.map(\.key.relationship) where index[name] == nil {
            index[name] = names.count
            names.append(name)
        }
        body.varint(names.count)
        for name in names { body.lengthPrefixed(name.utf8) }
        body.varint(rows.count)
        for (ref, row) in rows {
            body.varint(index[ref.table] ?? 0)
            body.append(contentsOf: ref.id.bytes)
            body.lengthPrefixed(StoreRegisters.encode(row))
        }
        body.varint(pairs.count)
        for (key, pair) in pairs {
            body.varint(index[key.relationship] ?? 0)
            body.append(contentsOf: key.from.bytes)
            body.append(contentsOf: key.to.bytes)
            body.lengthPrefixed(StoreRegisters.encode(pair))
        }
        let id = Array(device.rawValue.utf8)
        var out = ByteWriter(capacity: Header.fixedBytes + id.count + body.bytes.count + Header.checksumBytes)
        out.append(contentsOf: Snapshot.magic)
        out.littleEndian(Snapshot.formatVersion)
        out.littleEndian(UInt16(0))
        out.littleEndian(UInt64(Header.fixedBytes + id.count + body.bytes.count + Header.checksumBytes))
        out.littleEndian(schemaVersion)
        out.littleEndian(sequence)
        out.byte(UInt8(id.count))
        out.append(contentsOf: id)
        out.append(contentsOf: body.bytes)
        out.append(contentsOf: SHA256.digest(out.bytes))
        return out.bytes
    }
}
