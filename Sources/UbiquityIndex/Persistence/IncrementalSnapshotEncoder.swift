import UbiquityBinary

/// Encodes snapshots (``IndexSnapshot``) one after another, re-encoding only what changed since
/// the last: the bytes are those of ``IndexSnapshot/encode`` of the same view, byte for byte.
///
/// The slots are encoded in ranges of one chunk of the narrowest column (``ChunkedColumn``), the
/// history a chunk of entries at a time. Each piece keeps its bytes, their CRC-32 and the chunks
/// it was read from. Holding those chunks is what proves the piece unchanged: the engine copies a
/// chunk anyone else holds before writing to it, so a chunk still the same object (`===`) still
/// has the same values, and its identity cannot be reused while the piece holds it (no ABA).
/// The body's checksum is the pieces' CRCs combined (zlib's `crc32_combine`).
///
/// Memory: the pieces' bytes are about one encoded snapshot; the chunks they hold are shared
/// with the engine until it writes to one (then the old chunk lives until the next snapshot).
/// Not thread-safe: one owner (the index store's thread) encodes with it.
struct IncrementalSnapshotEncoder {
    private struct Piece {
        var owners: [AnyObject]
        /// Where the piece's values lie in their chunk (slots: the range's length).
        var bounds: Range<Int>
        var bytes: [UInt8]
        var crc: UInt32

        func matches(_ owners: [AnyObject], _ bounds: Range<Int>) -> Bool {
            self.bounds == bounds && self.owners.count == owners.count
                && zip(self.owners, owners).allSatisfy { $0 === $1 }
        }
    }

    /// What the last ``encode`` did: pieces taken as they were, and pieces encoded again.
    struct Counts: Equatable {
        var reused = 0
        var encoded = 0
    }

    private var slotPieces: [Piece] = []
    private var historyPieces: [ObjectIdentifier: Piece] = [:]
    /// History refers to containers by position: the ids in the order the history pieces saw.
    private var historyContainers: [ContainerID] = []
    private(set) var lastCounts = Counts()

    init() {}

    /// Slots a range: the chunk size of the column with the fewest values a chunk.
    static var slotRange: Int {
        Swift.min(NameColumn.chunkSize, ChunkedColumn<ItemID>.chunkSize, ChunkedColumn<UInt16>.chunkSize,
                  ChunkedColumn<MetadataIndex.Flags>.chunkSize, ChunkedColumn<FileStat>.chunkSize,
                  ChunkedColumn<UInt32>.chunkSize)
    }

    mutating func encode(_ view: IndexSnapshot.View, snapshotID: UInt64, savedAt: Int64, bootID: String, final: Bool,
                         continues: IndexSnapshot.Continuation?) -> [UInt8] {
        var counts = Counts()
        var prefix = ByteWriter()
        IndexSnapshot.writePrefix(&prefix, view, snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final,
                                  continues: continues)
        var parts: [(bytes: [UInt8], crc: UInt32)] = [(prefix.bytes, CRC32.checksum(prefix.bytes))]

        // Slots.
        let columns = view.columns, count = columns.names.count, range = Self.slotRange
        let rangeCount = (count + range - 1) / range
        var slots: [Piece] = []
        slots.reserveCapacity(rangeCount)
        for r in 0..<rangeCount {
            let lower = r * range, upper = Swift.min(lower + range, count)
            let owners: [AnyObject] = [
                columns.names.chunkOwner(lower >> NameColumn.chunkShift),
                columns.parents.chunkOwner(lower >> ChunkedColumn<ItemID>.chunkShift),
                columns.containerOf.chunkOwner(lower >> ChunkedColumn<UInt16>.chunkShift),
                columns.flagsOf.chunkOwner(lower >> ChunkedColumn<MetadataIndex.Flags>.chunkShift),
                columns.stats.chunkOwner(lower >> ChunkedColumn<FileStat>.chunkShift),
                columns.generations.chunkOwner(lower >> ChunkedColumn<UInt32>.chunkShift),
            ]
            if r < slotPieces.count, slotPieces[r].matches(owners, 0..<(upper - lower)) {
                slots.append(slotPieces[r])
                counts.reused += 1
            } else {
                var body = ByteWriter(capacity: (upper - lower) * 48)
                IndexSnapshot.writeSlots(&body, columns, lower..<upper)
                slots.append(Piece(owners: owners, bounds: 0..<(upper - lower), bytes: body.bytes, crc: CRC32.checksum(body.bytes)))
                counts.encoded += 1
            }
        }
        slotPieces = slots
        for piece in slots { parts.append((piece.bytes, piece.crc)) }

        var middle = ByteWriter()
        IndexSnapshot.writeFree(&middle, view.free)
        let kept = view.history.keptEntries
        middle.varint(kept.count)
        parts.append((middle.bytes, CRC32.checksum(middle.bytes)))

        // History, a chunk of entries at a time, keyed by the chunk's index in the column (stable
        // while the chunk lives: the column lets go of whole chunks at its front only).
        let containerIDs = view.containers.map(\.id)
        if containerIDs != historyContainers {
            historyPieces = [:]
            historyContainers = containerIDs
        }
        let positions = IndexSnapshot.containerPositions(view.containers)
        let column = kept.base, shift = ChunkedColumn<ChangeHistory.Entry>.chunkShift
        let size = ChunkedColumn<ChangeHistory.Entry>.chunkSize
        var history: [ObjectIdentifier: Piece] = [:]
        var lower = kept.startIndex
        while lower < kept.endIndex {
            let c = lower >> shift, upper = Swift.min((c + 1) << shift, kept.endIndex)
            let owners: [AnyObject] = [column.chunkOwner(c)]
            let bounds = (lower & (size - 1))..<(upper - (c << shift))
            // The key: the chunk's owner, not its index, which shifts when front chunks go.
            let key = ObjectIdentifier(owners[0])
            if let piece = historyPieces[key], piece.matches(owners, bounds) {
                history[key] = piece
                parts.append((piece.bytes, piece.crc))
                counts.reused += 1
            } else {
                var body = ByteWriter()
                IndexSnapshot.writeHistory(&body, kept[lower..<upper], positions: positions)
                let piece = Piece(owners: owners, bounds: bounds, bytes: body.bytes, crc: CRC32.checksum(body.bytes))
                history[key] = piece
                parts.append((piece.bytes, piece.crc))
                counts.encoded += 1
            }
            lower = upper
        }
        historyPieces = history

        var length = 0, crc: UInt32 = 0
        for part in parts {
            crc = CRC32.combine(crc, part.crc, length: part.bytes.count)
            length += part.bytes.count
        }
        var file: [UInt8] = []
        file.reserveCapacity(IndexSnapshot.headerSize + length)
        file.append(contentsOf: IndexSnapshot.header(bodyLength: length, checksum: crc))
        for part in parts { file.append(contentsOf: part.bytes) }
        lastCounts = counts
        return file
    }
}
