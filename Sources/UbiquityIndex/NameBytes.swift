/// The bytes of the index's long names (over 15 UTF-8 bytes; ``NameSlot``), as they are or
/// compressed (``NameCodec``), one after another in
/// chunks of 64 KiB: a name costs its length, with no header and no rounding of its own, where a
/// `String` of 17 bytes took a heap block of 64.
///
/// Append-only: a name is written once, where it stays until the ``NameColumn`` owning these bytes
/// compacts them. A name that does not fit in the last chunk's room starts a new chunk (a file
/// name is at most 255 bytes, so at most 255 bytes of a chunk go unused); a name over 64 KiB, which
/// no file system gives, gets a chunk of its own size. Replaced and removed names stay until
/// compaction: they are counted in ``freedBytes``.
///
/// Chunks are shared with a snapshot of the index as ``ChunkedColumn``'s are: the last chunk,
/// the only one written, is copied before a write when anyone else holds it.
struct NameBytes {
    static let chunkSize = 1 << 16

    private var chunks: [ColumnChunk<UInt8>] = []
    /// Each chunk's storage, read without retaining its owner; `bases[c] == chunks[c].base`.
    private var bases: [UnsafeMutablePointer<UInt8>] = []
    /// Bytes of names written and not freed.
    private(set) var liveBytes = 0
    /// Bytes of names freed (replaced or removed) and not yet compacted away.
    private(set) var freedBytes = 0

    init() {}

    /// Bytes held: every chunk's room, used or not.
    var allocatedBytes: Int { chunks.reduce(0) { $0 + $1.capacity } }

    /// Room in the list of chunks for `byteCount` more bytes of names.
    mutating func reserveChunks(for byteCount: Int) {
        let wanted = chunks.count + byteCount / Self.chunkSize + 1
        chunks.reserveCapacity(wanted)
        bases.reserveCapacity(wanted)
    }

    /// Writes `bytes` after the last name; returns where they are. With `decodedCount`, the bytes
    /// are a name of that length compressed (``NameSlot/isCompressed``).
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, decodedCount: Int? = nil) -> NameSlot {
        var c = chunks.count - 1
        if c < 0 || chunks[c].capacity - chunks[c].count < bytes.count {
            let chunk = ColumnChunk<UInt8>(capacity: Swift.max(Self.chunkSize, bytes.count))
            chunks.append(chunk)
            bases.append(chunk.base)
            c += 1
        } else if !isKnownUniquelyReferenced(&chunks[c]) {
            let copy = ColumnChunk(from: chunks[c], capacity: chunks[c].capacity, moving: false)
            chunks[c] = copy
            bases[c] = copy.base
        }
        let offset = chunks[c].count
        chunks[c].append(contentsOf: bytes)
        liveBytes += bytes.count
        return NameSlot(chunk: c, offset: offset, count: bytes.count, decodedCount: decodedCount)
    }

    /// How many chunks hold the bytes (a slot names its chunk by position).
    var chunkCount: Int { chunks.count }

    /// Adds `other`'s chunks after these (shared until either writes): its names' slots are then
    /// `chunkCount` chunks further on (``NameSlot/movedOn(byChunks:)``). The last chunk here keeps
    /// its unused room (at most one chunk's, once).
    mutating func append(chunksOf other: NameBytes) {
        chunks.append(contentsOf: other.chunks)
        bases.append(contentsOf: other.bases)
        liveBytes += other.liveBytes
        freedBytes += other.freedBytes
    }

    /// Counts a long name's bytes as freed (its slot no longer points at them).
    mutating func free(_ slot: NameSlot) {
        liveBytes -= slot.count
        freedBytes += slot.count
    }

    /// A long name's bytes (the slot must be long and written here).
    @inline(__always)
    func withBytes<R>(_ slot: NameSlot, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bases.withUnsafeBufferPointer { try body(Self.bytes(slot, in: $0)) }
    }

    /// Lends the chunks' storage for many reads; `body` must not change these bytes.
    func withBases<R>(_ body: (UnsafeBufferPointer<UnsafeMutablePointer<UInt8>>) throws -> R) rethrows -> R {
        try bases.withUnsafeBufferPointer(body)
    }

    @inline(__always)
    static func bytes(_ slot: NameSlot, in bases: UnsafeBufferPointer<UnsafeMutablePointer<UInt8>>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bases[slot.chunk] + slot.offset, count: slot.count)
    }
}

// As ChunkedColumn: the chunk written is always the column's own, so a copy sent to another thread
// shares chunks that nobody writes any more; `bases` are owned by `chunks`, which travel with them.
extension NameBytes: @unchecked Sendable {}
