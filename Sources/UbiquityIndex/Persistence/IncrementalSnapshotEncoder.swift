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
/// Memory: given a way to read the snapshot back (``SnapshotReadBack``), a piece lets go of its
/// bytes once the file holding them is written (``written()``), and the next encode reads an
/// unchanged piece back from that file, straight into the new one, and checks its CRC (a
/// mismatch, or a failed read, encodes every piece again). Without one, the pieces' bytes (about
/// one encoded snapshot: about 60 bytes per entry of the benchmarks' trees, 173 with names of 130 bytes)
/// stay in memory between saves. The chunks the pieces hold are shared with the engine until it
/// writes to one (then the old chunk lives until the next snapshot).
/// Not thread-safe: one owner (the index store's thread) encodes with it.
struct IncrementalSnapshotEncoder {
    private struct Piece {
        var owners: [AnyObject]
        /// Where the piece's values lie in their chunk (slots: the range's length).
        var bounds: Range<Int>
        /// Its encoded bytes, or none once they are in the file last written (``written()``).
        var bytes: [UInt8]
        /// How many bytes it encodes to, and where they start in the file last encoded.
        var count: Int
        var offset = 0
        var crc: UInt32

        init(owners: [AnyObject], bounds: Range<Int>, bytes: [UInt8]) {
            self.owners = owners
            self.bounds = bounds
            self.bytes = bytes
            count = bytes.count
            crc = CRC32.checksum(bytes)
        }

        /// Whether its bytes are in memory (else in the file last written).
        var isHeld: Bool { bytes.count == count }

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
    /// Whether the last ``encode`` was given a way to read its file back: ``written()`` then lets
    /// go of the pieces' bytes.
    private var lastCanReadBack = false
    /// Pieces whose bytes are read back from the file last written (not held in memory).
    var storedPieces: Int {
        slotPieces.count(where: { !$0.isHeld }) + historyPieces.values.count(where: { !$0.isHeld })
    }

    init() {}

    /// The file the last ``encode`` returned is written where the encode's `readBack` reads: the
    /// pieces let go of their bytes (the next encode reads the unchanged ones back).
    mutating func written() {
        guard lastCanReadBack else { return }
        for i in slotPieces.indices { slotPieces[i].bytes = [] }
        for key in historyPieces.keys { historyPieces[key]?.bytes = [] }
    }

    /// The file the last ``encode`` returned was not written (nor is the one before it readable):
    /// the next encode encodes every piece.
    mutating func notWritten() {
        slotPieces = []
        historyPieces = [:]
    }

    /// Slots a range: the chunk size of the column with the fewest values a chunk.
    static var slotRange: Int {
        Swift.min(NameColumn.chunkSize, ChunkedColumn<ItemID>.chunkSize, ChunkedColumn<UInt16>.chunkSize,
                  ChunkedColumn<MetadataIndex.Flags>.chunkSize, StatColumn.chunkSize,
                  ChunkedColumn<UInt32>.chunkSize)
    }

    /// - Parameter readBack: Reads the file the last encode returned, once ``written()``; nil
    ///   keeps the pieces' bytes in memory.
    mutating func encode(_ view: IndexSnapshot.View, snapshotID: UInt64, savedAt: Int64, bootID: String, final: Bool,
                         continues: IndexSnapshot.Continuation?, readBack: SnapshotReadBack? = nil) -> [UInt8] {
        var view = view
        _ = view.fileWaitingNames()    // none left when the caller filed them (to hand them back)
        if let file = encodeOnce(view, snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final,
                                 continues: continues, readBack: readBack) {
            return file
        }
        // A piece could not be read back as it was written: encode them all.
        notWritten()
        return encodeOnce(view, snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final,
                          continues: continues, readBack: readBack) ?? []
    }

    /// nil when a stored piece could not be read back, or read back other bytes than its CRC's.
    private mutating func encodeOnce(_ view: IndexSnapshot.View, snapshotID: UInt64, savedAt: Int64, bootID: String,
                                     final: Bool, continues: IndexSnapshot.Continuation?,
                                     readBack: SnapshotReadBack?) -> [UInt8]? {
        lastCanReadBack = readBack != nil
        var counts = Counts()
        let split = IndexSnapshot.splitSlot(view.columns.names.count)
        func prefix(splitOffset: Int) -> [UInt8] {
            var prefix = ByteWriter()
            IndexSnapshot.writePrefix(&prefix, view, snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final,
                                      continues: continues, split: split, splitOffset: splitOffset)
            return prefix.bytes
        }
        // Each part: its bytes, or where its bytes are in the file last written. The prefix's
        // length does not depend on the split's offset, which is known once the slots are placed.
        var parts: [Part] = [Part(prefix(splitOffset: 0))]
        var position = IndexSnapshot.headerSize + parts[0].count
        var splitOffset = 0
        func add(_ piece: inout Piece) {
            parts.append(Part(bytes: piece.bytes, count: piece.count, crc: piece.crc, storedAt: piece.isHeld ? nil : piece.offset))
            piece.offset = position
            position += piece.count
        }

        // Slots.
        let columns = view.columns, count = columns.names.count, range = Self.slotRange
        let rangeCount = (count + range - 1) / range
        precondition(split % range == 0, "the slots' split \(split) is not at a range's start (\(range))")
        var slots: [Piece] = []
        slots.reserveCapacity(rangeCount)
        for r in 0..<rangeCount {
            let lower = r * range, upper = Swift.min(lower + range, count)
            if split > 0 && lower == split { splitOffset = position - IndexSnapshot.headerSize }
            let owners: [AnyObject] = [
                columns.names.chunkOwner(lower >> NameColumn.chunkShift),
                columns.parents.chunkOwner(lower >> ChunkedColumn<ItemID>.chunkShift),
                columns.containerOf.chunkOwner(lower >> ChunkedColumn<UInt16>.chunkShift),
                columns.flagsOf.chunkOwner(lower >> ChunkedColumn<MetadataIndex.Flags>.chunkShift),
                columns.stats.chunkOwner(lower >> StatColumn.chunkShift),
                columns.generations.chunkOwner(lower >> ChunkedColumn<UInt32>.chunkShift),
            ]
            var piece: Piece
            if r < slotPieces.count, slotPieces[r].matches(owners, 0..<(upper - lower)) {
                piece = slotPieces[r]
                counts.reused += 1
            } else {
                var body = ByteWriter(capacity: (upper - lower) * 48)
                IndexSnapshot.writeSlots(&body, columns, lower..<upper)
                piece = Piece(owners: owners, bounds: 0..<(upper - lower), bytes: body.bytes)
                counts.encoded += 1
            }
            add(&piece)
            slots.append(piece)
        }

        if split > 0 { parts[0] = Part(prefix(splitOffset: splitOffset)) }

        var middle = ByteWriter()
        IndexSnapshot.writeFree(&middle, view.free)
        let kept = view.history.keptEntries
        middle.varint(kept.count)
        parts.append(Part(middle.bytes))
        position += middle.bytes.count

        // History, a chunk of entries at a time, keyed by the chunk's index in the column (stable
        // while the chunk lives: the column lets go of whole chunks at its front only).
        let containerIDs = view.containers.map(\.id)
        var previousHistory = historyPieces
        if containerIDs != historyContainers { previousHistory = [:] }
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
            var piece: Piece
            if let old = previousHistory[key], old.matches(owners, bounds) {
                piece = old
                counts.reused += 1
            } else {
                var body = ByteWriter()
                IndexSnapshot.writeHistory(&body, kept[lower..<upper], positions: positions)
                piece = Piece(owners: owners, bounds: bounds, bytes: body.bytes)
                counts.encoded += 1
            }
            add(&piece)
            history[key] = piece
            lower = upper
        }

        // The name order: encoded whole each time (4 bytes an entry; it changes with any name).
        var names = ByteWriter(capacity: 4 * view.columns.names.count + 64)
        IndexSnapshot.writeNameOrder(&names, view.nameBuckets)
        parts.append(Part(names.bytes))
        position += names.bytes.count

        var length = 0, crc: UInt32 = 0
        for part in parts {
            crc = CRC32.combine(crc, part.crc, length: part.count)
            length += part.count
        }
        let header = IndexSnapshot.header(bodyLength: length, checksum: crc)
        var readable = true
        let file = [UInt8](unsafeUninitializedCapacity: header.count + length) { buffer, initialized in
            let whole = UnsafeMutableRawBufferPointer(buffer)
            whole.copyBytes(from: header)
            var at = header.count
            for part in parts {
                let destination = UnsafeMutableRawBufferPointer(rebasing: whole[at..<(at + part.count)])
                if let stored = part.storedAt {
                    guard let readBack, readBack(stored, destination),
                          CRC32.checksum(UnsafeRawBufferPointer(destination)) == part.crc else {
                        readable = false
                        break
                    }
                } else {
                    destination.copyBytes(from: part.bytes)
                }
                at += part.count
            }
            initialized = readable ? at : 0
        }
        guard readable else { return nil }
        slotPieces = slots
        historyPieces = history
        historyContainers = containerIDs
        lastCounts = counts
        return file
    }

    /// One part of the file being assembled.
    private struct Part {
        var bytes: [UInt8]
        var count: Int
        var crc: UInt32
        /// Where its bytes are in the file last written, when they are not in `bytes`.
        var storedAt: Int?

        init(bytes: [UInt8], count: Int, crc: UInt32, storedAt: Int?) {
            self.bytes = bytes
            self.count = count
            self.crc = crc
            self.storedAt = storedAt
        }

        init(_ bytes: [UInt8]) { self.init(bytes: bytes, count: bytes.count, crc: CRC32.checksum(bytes), storedAt: nil) }
    }
}
