/// The index's names, one per slot (``MetadataIndex``'s `names` column): a 16-byte ``NameSlot``
/// per slot in a ``ChunkedColumn``, and the bytes of names over 15 UTF-8 bytes in ``NameBytes``.
///
/// Why not a column of `String`s: a `String` holds up to 15 bytes in its own 16, but a longer one
/// is a heap block of a 32-byte header, the bytes and a terminator, rounded up by malloc: 64 bytes
/// for `file_00000001.txt` (17 bytes), 80 more bytes per entry in all. Here it is the 16-byte slot
/// and its 17 bytes.
///
/// Freed bytes: a replaced or removed long name's bytes stay in ``NameBytes`` until they are more
/// than the live names' bytes and more than 1 MiB (``compactionFloor``); then every long name is
/// copied once into new chunks (an O(entries) pass on the engine, after at least as many bytes of
/// renames and removals). So the bytes held stay below twice the live bytes plus 1 MiB plus each
/// chunk's unused tail (under 256 bytes of 64 KiB).
///
/// Names are kept as the `String`s they came as (`subscript` gives back an equal `String`, the
/// same bytes); ``withUTF8(_:_:)`` lends a name's bytes without making a `String`, for the hot
/// paths (child lookups, name order, paths).
struct NameColumn {
    /// Freed bytes below this are never compacted.
    static let compactionFloor = 1 << 20

    private(set) var slots = ChunkedColumn<NameSlot>()
    private(set) var bytes = NameBytes()

    init() {}

    init(_ names: some Sequence<String>) {
        self.init()
        for name in names { append(name) }
    }

    var count: Int { slots.count }

    subscript(position: Int) -> String {
        get { Self.name(slots[position], bytes) }
        set {
            let old = slots[position]
            if !old.isShort { bytes.free(old) }
            slots[position] = store(newValue)
            compactIfWorthIt()
        }
    }

    mutating func append(_ name: String) { slots.append(store(name)) }

    /// Appends a name given as its UTF-8 bytes (valid: the caller checked them), stored as
    /// ``append(_:)`` stores the same name, without making a `String` of a long one (a restore's
    /// names come straight from the snapshot's bytes).
    mutating func append(utf8 name: UnsafeBufferPointer<UInt8>) {
        if name.count <= NameSlot.shortLimit, let short = NameSlot(short: String(decoding: name, as: UTF8.self)) {
            slots.append(short)
        } else {
            slots.append(bytes.append(name))
        }
    }

    mutating func reserveCapacity(_ capacity: Int) { slots.reserveCapacity(capacity) }

    /// Name `position`'s UTF-8 bytes, without making a `String` of a long one.
    @inline(__always)
    func withUTF8<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let slot = slots[position]
        if slot.isShort { return try slot.withShortUTF8(body) }
        return try bytes.withBytes(slot, body)
    }

    /// Who owns the chunk of slots `c` (``ChunkedColumn/chunkOwner(_:)``): a long name's bytes
    /// never change while its slot does not.
    func chunkOwner(_ c: Int) -> AnyObject { slots.chunkOwner(c) }

    static var chunkShift: Int { ChunkedColumn<NameSlot>.chunkShift }
    static var chunkSize: Int { ChunkedColumn<NameSlot>.chunkSize }

    /// Reads names without a bounds check or a reference count each; `body` must not change the
    /// column.
    func withReader<R>(_ body: (Reader) throws -> R) rethrows -> R {
        try slots.withReader { slots in try bytes.withBases { bases in try body(Reader(slots: slots, bases: bases)) } }
    }

    /// ``withReader(_:)`` through an in-place (`inout`) access: a column kept in a class is then
    /// read where it is, not through a copy of it (a retain and a release of each of its buffers),
    /// which a call on the property makes. Changes nothing.
    mutating func withReaderInPlace<R>(_ body: (Reader) throws -> R) rethrows -> R {
        try withReader(body)
    }

    /// A column's names as ``withReader(_:)`` lends them.
    struct Reader {
        fileprivate let slots: ChunkedColumn<NameSlot>.Reader
        fileprivate let bases: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>>

        var count: Int { slots.count }

        @inline(__always)
        subscript(position: Int) -> String {
            let slot = slots[position]
            if slot.isShort { return slot.shortName }
            return String(decoding: NameBytes.bytes(slot, in: bases), as: UTF8.self)
        }

        /// Name `position`'s UTF-8 bytes, without making a `String` of a long one.
        @inline(__always)
        func withUTF8<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            let slot = slots[position]
            if slot.isShort { return try slot.withShortUTF8(body) }
            return try body(NameBytes.bytes(slot, in: bases))
        }

        /// Appends name `position`'s UTF-8 to `out`.
        @inline(__always)
        func appendUTF8(_ position: Int, to out: inout [UInt8]) {
            let slot = slots[position]
            if slot.isShort {
                var name = slot.shortName
                name.withUTF8 { out.append(contentsOf: $0) }
            } else {
                out.append(contentsOf: NameBytes.bytes(slot, in: bases))
            }
        }

        /// Where slot `position` is in memory, to ask for it ahead of its use (a prefetch).
        @inline(__always)
        func address(_ position: Int) -> UnsafePointer<NameSlot> { slots.address(position) }

        /// Where name `position`'s bytes are: its slot for a short name, its bytes in a chunk for
        /// a long one (reading the slot: ask for it ahead first, ``address(_:)``).
        @inline(__always)
        func bytesAddress(_ position: Int) -> UnsafeRawPointer {
            let slot = slots[position]
            if slot.isShort { return UnsafeRawPointer(slots.address(position)) }
            return UnsafeRawPointer(bases[slot.chunk] + slot.offset)
        }
    }

    @inline(__always)
    private static func name(_ slot: NameSlot, _ bytes: NameBytes) -> String {
        if slot.isShort { return slot.shortName }
        return bytes.withBytes(slot) { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func store(_ name: String) -> NameSlot {
        if let short = NameSlot(short: name) { return short }
        var name = name
        return name.withUTF8 { bytes.append($0) }
    }

    /// Copies every long name into new chunks once the freed bytes outweigh the live ones.
    private mutating func compactIfWorthIt() {
        guard bytes.freedBytes > Swift.max(bytes.liveBytes, Self.compactionFloor) else { return }
        var fresh = NameBytes()
        fresh.reserveChunks(for: bytes.liveBytes)
        let old = bytes
        for i in 0..<slots.count {
            let slot = slots[i]
            guard !slot.isShort else { continue }
            slots[i] = old.withBytes(slot) { fresh.append($0) }
        }
        bytes = fresh
    }
}

extension NameColumn: Sendable {}
