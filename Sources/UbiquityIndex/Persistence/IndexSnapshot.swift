import UbiquityBinary

/// The saved index: every slot of the index as it was (so history's ids stay valid), the
/// containers, the clock and the change history, in one checksummed file. Written whole and
/// renamed into place by the daemon; ``RestoredIndex`` reads it back.
///
/// ```
/// "UBQINDEX"  format u32  body-length u64  crc32(body) u32  body
/// body: snapshot-id u64  saved-at i64  boot-id  final u8
///       continues-id u64  continues-offset u64                        (format 2; 0 0: none)
///       epoch u64  sequence u64  horizon u64  tracking u8
///       container-removed-at (0: never, else sequence + 1)
///       containers: n, (id, root, n, (extension, type)*)*
///       slots:      n, split-slot u64, split-offset u64                     (format 3)
///                   (0 | 1, generation, [parent, container, name, status])*
///       free list:  n, id*
///       history:    n, (sequence, id, time i64, 0 | 1, [item as it was])*
///       name order: n, (key, n, id u32*)*                                  (format 3)
/// ```
/// Numbers without a width are LEB128 varints; strings are a length and UTF-8 (``ByteWriter``).
///
/// A snapshot is taken at one moment and written while the engine goes on: the batches applied
/// meanwhile are appended to the journal of the snapshot before (continues-id), from
/// continues-offset on, until the new snapshot's own journal takes over. A format 1 snapshot
/// (the engine held still while it was written) is read as it is.
///
/// The split (format 3): the slots from split-slot on start at byte split-offset of the body,
/// so that two threads decode the two halves at once (``splitSlot(_:)``; 0 0: one run). The
/// first half is whole chunks of every column (``splitAlignment``), so the halves' columns are
/// joined by taking the second's chunks as they are (``MetadataIndex/Columns/append(contentsOf:)``).
///
/// The name order (format 3) is the name index's buckets, each key with its ids in (name, id)
/// order, the keys sorted: a restore checks it in one pass and takes it instead of sorting every
/// name again (``NameIndex/restore(_:named:slotCount:names:)``); one that does not hold is
/// rebuilt from the names. Formats 1 and 2 have none: their name index is always rebuilt.
public enum IndexSnapshot {
    static let magic = Array("UBQINDEX".utf8)
    static let formatVersion: UInt32 = 3
    static let readableVersions: ClosedRange<UInt32> = 1...3
    static let headerSize = 8 + 4 + 8 + 4
    /// Longest name order key read: a key is the first three characters of a lowercased name of
    /// at most 255 bytes (a character may hold any number of combining marks), and lowercasing
    /// makes a name at most half as long again (`İ` is 2 bytes, `i̇` 3); a longer one is damage.
    static let maxBucketKeyBytes = 1024

    /// The slots' second half starts at a multiple of this: a whole chunk of every column.
    static var splitAlignment: Int {
        Swift.max(NameColumn.chunkSize, ChunkedColumn<ItemID>.chunkSize, ChunkedColumn<UInt16>.chunkSize,
                  ChunkedColumn<MetadataIndex.Flags>.chunkSize, StatColumn.chunkSize, ChunkedColumn<UInt32>.chunkSize)
    }

    /// Where the second half of `count` slots starts: the multiple of ``splitAlignment`` at or
    /// below half of them; 0 (no split) below two of those.
    static func splitSlot(_ count: Int) -> Int {
        count < 2 * splitAlignment ? 0 : count / 2 / splitAlignment * splitAlignment
    }

    /// Where the journal of the snapshot before stood when this one was taken: records from
    /// there on came after this snapshot's moment.
    package struct Continuation: Sendable, Equatable {
        var snapshotID: UInt64
        var offset: UInt64
    }

    /// The index and history at one moment, for encoding off the engine: copies of the columns,
    /// the free list and the history's entries, which share the engine's chunks until the engine
    /// next writes to one (copy on write, a chunk at a time: ``ChunkedColumn``).
    package struct View: Sendable {
        var columns: MetadataIndex.Columns
        var free: ChunkedColumn<ItemID>
        var containers: [ContainerDescriptor]
        var history: ChangeHistory
        /// The name index's buckets (their chunks shared until the engine changes one).
        var nameBuckets: [String: SortedIDs]
        /// A first crawl's names the index still had waiting (``MetadataIndex/pendingNames``),
        /// filed into ``nameBuckets`` before the view is encoded (``fileWaitingNames()``).
        var waitingNames: [String: [ItemID]]
        /// How many times the index had filed each waiting bucket when the view was taken
        /// (``MetadataIndex/bucketFilings``): the engine takes a bucket's filing only if none since.
        var filingsBefore: [String: UInt64]

        package init(_ index: MetadataIndex, history: ChangeHistory) {
            columns = index.slotColumns
            free = index.free
            containers = index.containers
            self.history = history
            nameBuckets = index.nameIndex.bucketsForSnapshot
            waitingNames = index.pendingNames
            filingsBefore = index.pendingNames.keys.reduce(into: [:]) { $0[$1] = index.bucketFilings[$1] ?? 0 }
        }

        /// Files ``waitingNames`` into ``nameBuckets``, on the thread that encodes the view rather
        /// than the engine (at a million long names, sorting them all held the engine for 0.45 s):
        /// the saved order is then whole, and a restore takes it rather than sorting. Returns what
        /// it filed, for the engine to take (``MetadataIndex/takeFiledNames(_:)``).
        package mutating func fileWaitingNames() -> [String: FiledNameBucket] {
            var filed: [String: FiledNameBucket] = [:]
            for (key, ids) in waitingNames {
                let sorted = NameIndex.sortedByName(ids, names: columns.names)
                nameBuckets[key, default: SortedIDs()].insert(sorted: sorted, names: columns.names)
                filed[key] = FiledNameBucket(waiting: ids, sorted: sorted, filingsBefore: filingsBefore[key] ?? 0)
            }
            waitingNames = [:]
            return filed
        }
    }

    /// The saved form of `index` and `history`.
    /// - Parameters:
    ///   - bootID: the kernel's boot id: a journal is trusted only within the boot it was written in.
    ///   - final: written at a clean shutdown: no journal record follows it.
    ///   - continues: the journal that holds the batches applied after `view` was taken, until
    ///     this snapshot's own journal exists; nil when there is none.
    package static func encode(_ view: View, snapshotID: UInt64, savedAt: Int64, bootID: String, final: Bool,
                       continues: Continuation?) -> [UInt8] {
        var view = view
        _ = view.fileWaitingNames()
        let count = view.columns.names.count, split = splitSlot(count)
        var slots = ByteWriter(capacity: count * 48)
        writeSlots(&slots, view.columns, 0..<split)
        let firstHalf = slots.bytes.count
        writeSlots(&slots, view.columns, split..<count)
        // The prefix's length does not depend on the split's offset (fixed width): asked first.
        var prefix = ByteWriter()
        writePrefix(&prefix, view, snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final, continues: continues,
                    split: split, splitOffset: 0)
        let splitOffset = split == 0 ? 0 : prefix.bytes.count + firstHalf
        var body = ByteWriter(capacity: prefix.bytes.count + slots.bytes.count + 4 * count + 1024)
        writePrefix(&body, view, snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final, continues: continues,
                    split: split, splitOffset: splitOffset)
        body.append(contentsOf: slots.bytes)
        writeFree(&body, view.free)
        let kept = view.history.keptEntries
        body.varint(kept.count)
        writeHistory(&body, kept, positions: containerPositions(view.containers))
        writeNameOrder(&body, view.nameBuckets)
        var file = ByteWriter(capacity: headerSize + body.bytes.count)
        file.append(contentsOf: header(bodyLength: body.bytes.count, checksum: CRC32.checksum(body.bytes)))
        file.append(contentsOf: body.bytes)
        return file.bytes
    }

    /// The file's first bytes, before the body.
    static func header(bodyLength: Int, checksum: UInt32, version: UInt32 = formatVersion) -> [UInt8] {
        var file = ByteWriter(capacity: headerSize)
        file.append(contentsOf: magic)
        file.fixed32(version)
        file.fixed64(UInt64(bodyLength))
        file.fixed32(checksum)
        return file.bytes
    }

    /// The body up to the slots: ids, clocks, containers, the number of slots and where their
    /// second half starts (`split`: ``splitSlot(_:)``; `splitOffset`: its first byte's offset in
    /// the body); as long whatever the split's offset.
    static func writePrefix(_ body: inout ByteWriter, _ view: View, snapshotID: UInt64, savedAt: Int64, bootID: String,
                            final: Bool, continues: Continuation?, split: Int, splitOffset: Int) {
        let history = view.history
        body.fixed64(snapshotID)
        body.int64(savedAt)
        body.string(bootID)
        body.bool(final)
        body.fixed64(continues?.snapshotID ?? 0)
        body.fixed64(continues?.offset ?? 0)
        body.fixed64(history.epoch)
        body.fixed64(history.sequence)
        body.fixed64(history.horizon)
        body.bool(history.isTracking)
        body.varint(history.containerRemovedAt.map { $0 &+ 1 } ?? 0)
        body.varint(view.containers.count)
        for container in view.containers { body.container(container) }
        body.varint(view.columns.names.count)
        body.fixed64(UInt64(split))
        body.fixed64(UInt64(splitOffset))
    }

    /// The slots in `range`; their bytes depend on nothing but the columns in that range.
    static func writeSlots(_ body: inout ByteWriter, _ slots: MetadataIndex.Columns, _ range: Range<Int>) {
        for i in range {
            let live = slots.flagsOf[i].contains(.live)
            body.bool(live)
            body.varint(slots.generations[i])
            guard live else { continue }
            body.varint(slots.parents[i])
            body.varint(UInt32(slots.containerOf[i]))
            // A root's name is its container's path, which the container already says.
            body.string(slots.flagsOf[i].contains(.containerRoot) ? "/" : slots.names[i])
            body.fileStat(slots.stats[i])
        }
    }

    static func writeFree(_ body: inout ByteWriter, _ free: ChunkedColumn<ItemID>) {
        body.varint(free.count)
        for id in free { body.varint(id) }
    }

    /// The name order: the buckets by key, each one's ids as they are in it (fixed 32 bits each:
    /// read back as one copy).
    static func writeNameOrder(_ body: inout ByteWriter, _ buckets: [String: SortedIDs]) {
        body.varint(buckets.count)
        for key in buckets.keys.sorted() {
            let sorted = buckets[key]!
            body.string(key)
            body.varint(sorted.count)
            for chunk in sorted.chunks {
                for id in chunk { body.fixed32(id) }
            }
        }
    }

    /// Each container's position in the saved list, by id (history refers to containers by it).
    static func containerPositions(_ containers: [ContainerDescriptor]) -> [ContainerID: Int] {
        Dictionary(containers.enumerated().map { ($0.element.id, $0.offset) }) { first, _ in first }
    }

    /// History entries, without their count.
    static func writeHistory(_ body: inout ByteWriter, _ entries: Slice<ChunkedColumn<ChangeHistory.Entry>>,
                             positions: [ContainerID: Int]) {
        for entry in entries {
            body.varint(entry.sequence)
            body.varint(entry.id)
            body.int64(entry.time)
            body.bool(entry.before != nil)
            if let before = entry.before { body.itemSnapshot(before, containers: positions) }
        }
    }

    /// What a snapshot holds, checked for consistency; the index is not built yet.
    struct Contents {
        var snapshotID: UInt64
        var savedAt: Int64
        var bootID: String
        var final: Bool
        /// Format 1: always nil (its engine held still while it was written).
        var continues: Continuation?
        /// Format 2 and later: the snapshot was written while batches went on, so without a journal
        /// that holds them (its own or `continues`) it is behind clocks already handed out.
        var needsJournal: Bool
        var epoch: UInt64
        var sequence: UInt64
        var horizon: UInt64
        var isTracking: Bool
        var containerRemovedAt: UInt64?
        var containers: [ContainerDescriptor]
        var columns: MetadataIndex.Columns
        var free: [ItemID]
        var history: [ChangeHistory.Entry]
        /// Format 3 and later: the name index's buckets, unchecked (the restore checks them).
        var nameOrder: [SavedNameBucket]?
    }

    /// - Parameter stepAside: looked at between stretches of the work, on each of its threads.
    static func decode(_ bytes: [UInt8], stepAside: StepAside = .never) throws(SavedIndexError) -> Contents {
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else { throw .foreign }
        var header = BinaryReader(bytes, from: magic.count)
        let version = try header.fixed32()
        guard readableVersions.contains(version) else { throw .unsupportedVersion(version) }
        let length = try header.fixed64()
        let checksum = try header.fixed32()
        guard length == UInt64(header.remaining) else { throw length > UInt64(header.remaining) ? .truncated : .invalid("bytes after the end") }
        // The checksum is computed on a thread of its own while the body is decoded (the decoder
        // takes any bytes: it checks every read); a mismatch is the reason given, whatever the
        // decoder made of the damaged bytes.
        let start = header.offset
        var matches = false
        let decoded = SideThread.run({
            var crc: UInt32 = 0, from = start
            while from < bytes.count {
                stepAside()
                let to = from + min(bytes.count - from, checksumStretch)
                crc = CRC32.checksum(bytes[from..<to], continuing: crc)
                from = to
            }
            matches = crc == checksum
        }) {
            Result { () throws(SavedIndexError) in try decodeBody(bytes, from: start, version: version, stepAside: stepAside) }
        }
        guard matches else { throw .checksumMismatch }
        return try decoded.get()
    }

    /// How many bytes the checksum reads between two looks at ``StepAside`` (about a millisecond).
    static let checksumStretch = 4 << 20

    /// `count` slots from `reader`, checked as they are read.
    /// - Parameters:
    ///   - givingCodecTo: the first half of two: its names' codec is handed over once trained.
    ///   - takingCodecFrom: the second half: before its first name to compress, it takes the
    ///     first half's codec (waiting for it), so that both halves compress alike.
    private static func decodeSlots(_ reader: inout BinaryReader, count slotCount: Int, containerCount: Int,
                                    givingCodecTo giving: CodecHandoff? = nil,
                                    takingCodecFrom taking: CodecHandoff? = nil,
                                    stepAside: StepAside) throws(SavedIndexError) -> MetadataIndex.Columns {
        // Read through a local copy, put back at the end (through the `inout`, reads retained and
        // released the bytes).
        var body = reader
        defer { reader = body }
        var columns = MetadataIndex.Columns()
        columns.names.reserveCapacity(slotCount)
        columns.parents.reserveCapacity(slotCount)
        columns.containerOf.reserveCapacity(slotCount)
        columns.flagsOf.reserveCapacity(slotCount)
        columns.stats.reserveCapacity(slotCount)
        columns.generations.reserveCapacity(slotCount)
        var gives = giving != nil, takes = taking != nil
        // The handoff, which both halves' threads share, without a reference count: retained for
        // each name's closure, its count's cache line went back and forth between the two cores
        // (each half at about half speed, `perf`). The caller holds it until both halves end.
        let givingTo = giving.map { Unmanaged.passUnretained($0) }, takingFrom = taking.map { Unmanaged.passUnretained($0) }
        let deadStat = FileStat(kind: .other)
        // Every column but the names takes its values a batch at a time (a chunk's worth):
        // appended one at a time to their chunked columns they were a third of the decoding.
        let batchSize = ChunkedColumn<UInt32>.chunkSize
        var generations: [UInt32] = [], parents: [ItemID] = [], containerOf: [UInt16] = []
        var flagsOf: [MetadataIndex.Flags] = [], stats: [FileStat] = []
        generations.reserveCapacity(batchSize)
        parents.reserveCapacity(batchSize)
        containerOf.reserveCapacity(batchSize)
        flagsOf.reserveCapacity(batchSize)
        stats.reserveCapacity(batchSize)
        func flush() {
            stepAside()
            columns.generations.append(contentsOf: generations)
            columns.parents.append(contentsOf: parents)
            columns.containerOf.append(contentsOf: containerOf)
            columns.flagsOf.append(contentsOf: flagsOf)
            columns.stats.append(contentsOf: stats)
            generations.removeAll(keepingCapacity: true)
            parents.removeAll(keepingCapacity: true)
            containerOf.removeAll(keepingCapacity: true)
            flagsOf.removeAll(keepingCapacity: true)
            stats.removeAll(keepingCapacity: true)
        }
        for _ in 0..<slotCount {
            if generations.count == batchSize { flush() }
            let live = try body.bool()
            generations.append(try body.uint32())
            guard live else {
                columns.names.append("")
                parents.append(0)
                containerOf.append(0)
                flagsOf.append([])
                stats.append(deadStat)
                continue
            }
            parents.append(try body.uint32())
            let container = try body.uint32()
            guard container < UInt32(containerCount) else { throw .invalid("an entry of container #\(container) of \(containerCount)") }
            containerOf.append(UInt16(container))
            try body.withStringBytes(maxBytes: BinaryReader.maxNameBytes) { name in
                let compressible = NameColumn.isCompressible(count: name.count)
                if takes && compressible, let takingFrom {
                    takes = false
                    if let codec = takingFrom.takeUnretainedValue().take() { columns.names.adopt(codec) }
                }
                columns.names.append(utf8: name)
                if gives && compressible, let givingTo, let codec = columns.names.codec {
                    gives = false
                    givingTo.takeUnretainedValue().give(codec)
                }
            }
            flagsOf.append(.live)
            stats.append(try body.fileStat())
        }
        flush()
        return columns
    }

    /// The body of a snapshot of format `version`, from `start`; its checksum is checked apart.
    private static func decodeBody(_ bytes: [UInt8], from start: Int, version: UInt32,
                                   stepAside: StepAside) throws(SavedIndexError) -> Contents {
        var body = BinaryReader(bytes, from: start)
        let snapshotID = try body.fixed64()
        let savedAt = try body.int64()
        let bootID = try body.string(maxBytes: 64)
        let final = try body.bool()
        var continues: Continuation?
        if version >= 2 {
            let id = try body.fixed64(), offset = try body.fixed64()
            if id != 0 { continues = Continuation(snapshotID: id, offset: offset) }
        }
        let epoch = try body.fixed64()
        let sequence = try body.fixed64()
        let horizon = try body.fixed64()
        let isTracking = try body.bool()
        let removedAt = try body.varint()
        let containerRemovedAt = removedAt == 0 ? nil : removedAt &- 1
        guard containerRemovedAt ?? 0 <= sequence else { throw .invalid("a container removal past the sequence") }
        guard horizon <= sequence else { throw .invalid("the history's horizon is past its sequence") }
        // Every batch adds one: no daemon gets near 2^63 of them, and one more must not overflow.
        guard sequence < UInt64(Int64.max) else { throw .invalid("the history's sequence \(sequence) is at its end") }

        let containerCount = try body.count(minimumSize: 3)
        guard containerCount <= Int(UInt16.max) else { throw .invalid("\(containerCount) containers") }
        var containers: [ContainerDescriptor] = []
        for _ in 0..<containerCount {
            let container = try body.container()
            guard !containers.contains(where: { $0.id == container.id }) else { throw .invalid("container \(container.id) twice") }
            containers.append(container)
        }

        let slotCount = try body.count(minimumSize: 2)
        var split = 0, splitOffset = 0
        if version >= 3 {
            let slot = try body.fixed64(), offset = try body.fixed64()
            guard slot <= UInt64(slotCount), slot % UInt64(splitAlignment) == 0 else {
                throw .invalid("the slots' second half starts at slot \(slot) of \(slotCount)")
            }
            // Checked before any arithmetic on it (no split: no offset), and read before the checksum
            // is known: a flipped bit here must be refused, never trap.
            guard slot == 0 ? offset == 0 : (offset >= UInt64(body.offset - start) && offset <= UInt64(bytes.count - start)) else {
                throw .invalid("the slots' second half starts at byte \(offset)")
            }
            if slot > 0 {
                split = Int(slot)
                splitOffset = start + Int(offset)
            }
        }
        var columns: MetadataIndex.Columns
        if split > 0 {
            // Two threads: the first half here, up to where the second starts; the second on a
            // thread of its own, which then reads on (the free list, history, name order).
            let handoff = CodecHandoff(), all = bytes, secondCount = slotCount - split
            var second: Result<(MetadataIndex.Columns, BinaryReader), SavedIndexError> = .failure(.truncated)
            let first = SideThread.run({
                second = Result { () throws(SavedIndexError) in
                    var reader = BinaryReader(all, from: splitOffset)
                    let columns = try decodeSlots(&reader, count: secondCount, containerCount: containerCount, takingCodecFrom: handoff,
                                                    stepAside: stepAside)
                    return (columns, reader)
                }
            }) {
                Result { () throws(SavedIndexError) -> MetadataIndex.Columns in
                    // Whatever happens here, the second half is not kept waiting for a codec.
                    defer { handoff.give(nil) }
                    var reader = BinaryReader(bytes, from: body.offset, to: splitOffset)
                    let columns = try decodeSlots(&reader, count: split, containerCount: containerCount, givingCodecTo: handoff,
                                                    stepAside: stepAside)
                    guard reader.isAtEnd else { throw .invalid("the slots' first half ends before their second half starts") }
                    return columns
                }
            }
            columns = try first.get()
            var rest: MetadataIndex.Columns
            (rest, body) = try second.get()
            columns.append(contentsOf: &rest)
        } else {
            columns = try decodeSlots(&body, count: slotCount, containerCount: containerCount, stepAside: stepAside)
        }

        let freeCount = try body.count()
        var free: [ItemID] = []
        free.reserveCapacity(freeCount)
        for _ in 0..<freeCount { free.append(try body.uint32()) }

        let historyCount = try body.count(minimumSize: 11)
        var history: [ChangeHistory.Entry] = []
        history.reserveCapacity(historyCount)
        var previous: UInt64 = 0
        for _ in 0..<historyCount {
            let entrySequence = try body.varint()
            guard entrySequence >= previous, entrySequence <= sequence else { throw .invalid("history out of order") }
            previous = entrySequence
            let id = try body.uint32()
            let time = try body.int64()
            let before = try body.bool() ? try body.itemSnapshot(containers: containers) : nil
            history.append(ChangeHistory.Entry(sequence: entrySequence, id: id, before: before, time: time))
        }
        var nameOrder: [SavedNameBucket]?
        if version >= 3 {
            let bucketCount = try body.count(minimumSize: 2)
            var buckets: [SavedNameBucket] = []
            buckets.reserveCapacity(bucketCount)
            for _ in 0..<bucketCount {
                let key = try body.string(maxBytes: maxBucketKeyBytes)
                let idCount = try body.count(minimumSize: 4)
                buckets.append(SavedNameBucket(key: key, ids: try body.fixed32s(idCount)))
            }
            nameOrder = buckets
        }
        guard body.isAtEnd else { throw .invalid(version >= 3 ? "bytes after the name order" : "bytes after the history") }
        return Contents(snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final, continues: continues,
                        needsJournal: version >= 2 && !final, epoch: epoch, sequence: sequence, horizon: horizon,
                        isTracking: isTracking, containerRemovedAt: containerRemovedAt, containers: containers, columns: columns, free: free, history: history,
                        nameOrder: nameOrder)
    }
}
