import UbiquityBinary

/// The journal after a saved index: every batch applied since the snapshot, in order, each a
/// framed, checksummed record appended before any clock of that batch is handed out. Replayed onto
/// the snapshot it gives back the index and history exactly as they were at the last record, so a
/// token handed out after the snapshot is still answered exactly after `kill -9`.
///
/// ```
/// "UBQJRNL1"  format u32  snapshot-id u64  boot-id (header: the snapshot this journal continues,
///                                                  and the boot its records are written in)
/// record:     length u32  crc32(payload) u32  payload
/// payload:    1  time i64  tracking u8  n  change*  (a batch)
///             2  container                          (a container added or changed by a reload)
///             3                                     (a container removed from the configuration)
/// change:     0 stat | 1 remove | 2 move | 3 listing | 4 tags, then container id, path and the rest
///             (a listing's parts are not kept: the listing after them holds their entries)
/// ```
/// Format 2 added the tags change and the deferred-tags bit of a status; a format 1 journal is
/// read as it is (it has neither). Format 3 added the boot id to the header: a daemon that goes on
/// from a restored snapshot appends to its journal instead of writing a snapshot anew, so the boot
/// a record was written in is no longer always the snapshot's. An empty boot id is a clean
/// shutdown's journal (no record follows a final snapshot); a format 1 or 2 journal's boot is
/// its snapshot's (``RestoredIndex`` has the rules).
/// A record cut short ends the journal (a crash in the middle of its write: its clock was never
/// handed out); a whole record whose checksum fails is damage, and refuses the saved index.
public enum IndexJournal {
    static let magic = Array("UBQJRNL1".utf8)
    static let formatVersion: UInt32 = 3
    static let readableVersions: ClosedRange<UInt32> = 1...3
    static let frameSize = 8
    /// A boot id is 36 bytes (a UUID); longer is refused as damage.
    static let maxBootIDBytes = 64

    enum Record {
        /// A batch as the engine applied it: at `time`, with history tracking or not.
        case batch([FileSystemChange], time: Int64, tracking: Bool)
        case containerAdded(ContainerDescriptor)
        /// ``ChangeHistory/noteContainerRemoved()``.
        case containerRemoved
    }

    /// What a journal's header and its whole records say (``decode(_:snapshotID:continuing:)``).
    struct Decoded {
        var records: [Record]
        /// The snapshot the header names (the one decoded for, or the one it continues).
        var journalOf: UInt64
        /// The header's boot id; nil for format 1 and 2 (written in the snapshot's boot), empty
        /// for a clean shutdown's journal.
        var bootID: String?
        /// Where the records read begin, and where the last whole one ends: a torn tail after
        /// it is ``ignoredBytes``.
        var recordsStart: Int
        var wholeLength: Int
        var ignoredBytes: Int
    }

    /// The header of a journal that continues snapshot `snapshotID`, its records written in boot
    /// `bootID` (empty: a clean shutdown's journal, which no record follows).
    static func header(snapshotID: UInt64, bootID: String) -> [UInt8] {
        var writer = ByteWriter(capacity: 8 + 4 + 8 + 1 + bootID.utf8.count)
        writer.append(contentsOf: magic)
        writer.fixed32(formatVersion)
        writer.fixed64(snapshotID)
        writer.string(bootID)
        return writer.bytes
    }

    /// One record, framed.
    ///
    /// The frame's length and checksum are written in front of the payload once it is done, in
    /// the same buffer, sized ahead (``estimatedPayloadBytes(_:)``): a crawl's listing of a million
    /// entries is tens of megabytes, and growing the buffer by doubling and then copying it behind
    /// its frame were most of the time its record took.
    static func encode(_ record: Record) -> [UInt8] {
        var framed = ByteWriter(capacity: frameSize + estimatedPayloadBytes(record))
        framed.fixed32(0)   // the payload's length and checksum, once they are known
        framed.fixed32(0)
        switch record {
        case .batch(let changes, let time, let tracking):
            framed.byte(1)
            framed.int64(time)
            framed.bool(tracking)
            // A listing's parts are left out: the listing after them holds their entries.
            let kept = changes.filter { !$0.isListingPart }
            framed.varint(kept.count)
            for change in kept { framed.change(change) }
        case .containerAdded(let descriptor):
            framed.byte(2)
            framed.container(descriptor)
        case .containerRemoved:
            framed.byte(3)
        }
        let checksum = CRC32.checksum(framed.bytes[frameSize...])
        framed.patch(UInt32(truncatingIfNeeded: framed.bytes.count - frameSize), at: 0)
        framed.patch(checksum, at: 4)
        return framed.bytes
    }

    /// About as many bytes as `record`'s payload takes: its listings' names and a status's usual
    /// size per entry (for a listing, more rather than fewer), a little for anything else (a
    /// buffer too small just grows).
    static func estimatedPayloadBytes(_ record: Record) -> Int {
        guard case .batch(let changes, _, _) = record else { return 256 }
        var total = 64
        for change in changes {
            guard case .listing(_, let path, let listing) = change else {
                total &+= 128
                continue
            }
            let entries = listing.entries
            total &+= 128 &+ path.reduce(0) { $0 &+ $1.utf8.count &+ 2 } &+ entries.count &* estimatedBytesPerEntry
            for position in entries.indices { total &+= entries.nameCount(position) }
        }
        return total
    }

    /// An entry's bytes in a listing but for its name: its parent and the name's length (usually
    /// a few bytes each), and its status (usually under 30: times as differences, small numbers).
    static let estimatedBytesPerEntry = 40

    /// The records of a journal that continues `snapshotID`, up to one cut short at the end
    /// (``Decoded/ignoredBytes`` says how much of it there was). The journal of the snapshot
    /// before, which the snapshot `continues`, is read from where the snapshot was taken: the
    /// daemon stopped after writing the snapshot and before starting its journal. nil for the
    /// journal of any other snapshot.
    static func decode(_ bytes: [UInt8], snapshotID: UInt64,
                       continuing continues: IndexSnapshot.Continuation? = nil) throws(SavedIndexError) -> Decoded? {
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else { throw .foreign }
        var header = BinaryReader(bytes, from: magic.count)
        let version = try header.fixed32()
        guard readableVersions.contains(version) else { throw .unsupportedVersion(version) }
        let journalOf = try header.fixed64()
        let bootID = version >= 3 ? try header.string(maxBytes: maxBootIDBytes) : nil
        var offset = header.offset
        if journalOf != snapshotID {
            guard let continues, continues.snapshotID == journalOf else { return nil }
            // Written before the journal's end ever reached the offset: the two do not belong together.
            guard continues.offset >= UInt64(offset), continues.offset <= UInt64(bytes.count) else {
                throw .invalid("the snapshot continues its journal past the journal's end")
            }
            offset = Int(continues.offset)
        }
        let recordsStart = offset
        var records: [Record] = []
        while bytes.count - offset >= frameSize {
            var frame = BinaryReader(bytes, from: offset)
            let length = Int(try frame.fixed32())
            let checksum = try frame.fixed32()
            guard length <= frame.remaining else { break }      // cut short: the write a crash interrupted
            // Whole but wrong: not something a crash leaves (a write is cut, not garbled).
            guard CRC32.checksum(bytes[frame.offset..<(frame.offset + length)]) == checksum else { throw .checksumMismatch }
            var payload = BinaryReader(bytes, from: frame.offset, to: frame.offset + length)
            // A record whose checksum holds but whose content does not parse was written wrong:
            // that is not a torn tail, and the whole saved index is refused.
            records.append(try payload.record())
            guard payload.isAtEnd else { throw .invalid("bytes after a journal record") }
            offset = frame.offset + length
        }
        return Decoded(records: records, journalOf: journalOf, bootID: bootID, recordsStart: recordsStart,
                       wholeLength: offset, ignoredBytes: bytes.count - offset)
    }
}

extension ByteWriter {
    mutating func path(_ components: [String]) {
        varint(components.count)
        for component in components { string(component) }
    }

    mutating func change(_ change: FileSystemChange) {
        switch change {
        case .stat(let container, let path, let stat):
            byte(0)
            string(container.rawValue)
            self.path(path)
            fileStat(stat)
        case .remove(let container, let path):
            byte(1)
            string(container.rawValue)
            self.path(path)
        case .move(let container, let from, let to, let stat):
            byte(2)
            string(container.rawValue)
            self.path(from)
            self.path(to)
            bool(stat != nil)
            if let stat { fileStat(stat) }
        case .listing(let container, let path, let listing):
            byte(3)
            string(container.rawValue)
            self.path(path)
            bool(listing.root != nil)
            if let root = listing.root { fileStat(root) }
            let entries = listing.entries
            varint(entries.count)
            // Names as the listing holds them, bytes: no `String` made per entry.
            for position in entries.indices {
                entries.withName(position) { name in
                    scratch { fields in
                        fields.zigzag(Int64(entries.parent(position)))
                        fields.varint(name.count)
                    }
                    append(contentsOf: name)
                }
                fileStat(entries.stat(position))
            }
        case .listingPart:
            return      // never journaled (encode(_:) leaves them out)
        case .tags(let container, let path, let inode, let tags):
            byte(4)
            string(container.rawValue)
            self.path(path)
            varint(inode)
            varint(tags.count)
            for (name, list) in tags.sorted(by: { $0.key.string.utf8.lexicographicallyPrecedes($1.key.string.utf8) }) {
                string(name.string)
                varint(list.count)
                for tag in list { string(tag) }
            }
        }
    }
}

extension BinaryReader {
    mutating func path() throws(SavedIndexError) -> [String] {
        let count = try count()
        var components: [String] = []
        components.reserveCapacity(count)
        for _ in 0..<count { components.append(try string(maxBytes: Self.maxNameBytes)) }
        return components
    }

    mutating func containerID() throws(SavedIndexError) -> ContainerID {
        let raw = try string(maxBytes: ContainerID.maxLength)
        do { return try ContainerID(raw) } catch { throw .invalid("\(error)") }
    }

    mutating func change() throws(SavedIndexError) -> FileSystemChange {
        let kind = try byte()
        let container = try containerID()
        let path = try path()
        switch kind {
        case 0:
            return .stat(container, path, try fileStat())
        case 1:
            return .remove(container, path)
        case 2:
            let to = try self.path()
            let stat = try bool() ? try fileStat() : nil
            return .move(container, from: path, to: to, stat: stat)
        case 3:
            let root = try bool() ? try fileStat() : nil
            let count = try count(minimumSize: 3)
            var entries: [CrawlListing.Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let parent = try zigzag()
                guard parent >= -1, parent < Int64(count) else { throw .invalid("a listing entry's parent is out of range") }
                entries.append(CrawlListing.Entry(parent: Int32(parent), name: try string(maxBytes: Self.maxNameBytes),
                                                  stat: try fileStat()))
            }
            return .listing(container, path, CrawlListing(root: root, entries: entries))
        case 4:
            let inode = try varint()
            let count = try count(minimumSize: 2)
            var tags: [ExactName: [String]] = [:]
            tags.reserveCapacity(count)
            for _ in 0..<count {
                let name = try string(maxBytes: Self.maxNameBytes)
                let tagCount = try self.count()
                var list: [String] = []
                for _ in 0..<tagCount { list.append(try string()) }
                tags[ExactName(name)] = list
            }
            return .tags(container, path, directoryInode: inode, tags)
        case let other:
            throw .invalid("a change of kind \(other)")
        }
    }

    mutating func record() throws(SavedIndexError) -> IndexJournal.Record {
        switch try byte() {
        case 1:
            let time = try int64()
            let tracking = try bool()
            let count = try count(minimumSize: 3)
            var changes: [FileSystemChange] = []
            changes.reserveCapacity(count)
            for _ in 0..<count { changes.append(try change()) }
            return .batch(changes, time: time, tracking: tracking)
        case 2:
            return .containerAdded(try container())
        case 3:
            return .containerRemoved
        case let other:
            throw .invalid("a journal record of kind \(other)")
        }
    }
}
