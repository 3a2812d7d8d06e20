import CUbiquityBytes
import UbiquityPredicate

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
///
/// Long names compressed: a name of ``compressionThreshold`` (48) to 255 bytes is stored encoded
/// by the column's ``NameCodec`` when that is shorter. The codec is trained once, on the first
/// ``trainingBytes`` (64 KiB) of such names the column is given, and fixed for the column's life
/// (a copy of the column shares it); those names, and any given before, stay as they are. So
/// `Item_<UUID>` (41 bytes) and `file_00000001.txt` are never compressed; names of 60–200 bytes
/// of Latin, Greek, Cyrillic, CJK and emoji take about two thirds of their bytes. Reading one
/// decodes it into a buffer on the stack; ``Reader/compare(_:_:)`` decodes only as far as the
/// names' order needs.
struct NameColumn {
    /// Freed bytes below this are never compacted.
    static let compactionFloor = 1 << 20
    /// Shortest name compressed.
    static let compressionThreshold = 48
    /// Bytes of names over the threshold the codec is trained on.
    static let trainingBytes = 1 << 16
    /// How far ``Reader/compare(_:_:)`` decodes a compressed name before it decodes it whole.
    static let comparedPrefix = 24

    private(set) var slots = ChunkedColumn<NameSlot>()
    private(set) var bytes = NameBytes()
    /// The table long names are compressed with, once trained.
    private(set) var codec: NameCodec?
    /// The names over the threshold seen while there is no codec yet: its training sample.
    private var sample: [UInt8] = []
    private var sampleEnds: [Int] = []

    init() {}

    init(_ names: some Sequence<String>) {
        self.init()
        for name in names { append(name) }
    }

    var count: Int { slots.count }

    subscript(position: Int) -> String {
        get { Self.name(slots[position], bytes, codec) }
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
            slots.append(storeLong(name))
        }
    }

    /// ``append(utf8:)`` of a name whose compressed bytes were worked out ahead with this
    /// column's codec (``PreparedNames``): `encoded`, nil for a name stored as it is.
    mutating func append(utf8 name: UnsafeBufferPointer<UInt8>, encoded: UnsafeBufferPointer<UInt8>?) {
        guard let encoded, codec != nil else { return append(utf8: name) }
        slots.append(bytes.append(encoded, decodedCount: name.count))
    }

    /// Whether a long name of `count` bytes is compressed once the codec is trained (when that
    /// saves bytes).
    static func isCompressible(count: Int) -> Bool { (compressionThreshold...NameCodec.maxNameBytes).contains(count) }

    mutating func reserveCapacity(_ capacity: Int) { slots.reserveCapacity(capacity) }

    /// Compresses long names with `codec` from now on, as if trained here; only before any name
    /// over the threshold came (the second half of a saved index decoded apart, given the
    /// first half's codec: ``IndexSnapshot``).
    mutating func adopt(_ codec: NameCodec) {
        precondition(self.codec == nil && sample.isEmpty, "a codec adopted after names to compress")
        self.codec = codec
    }

    /// Adds `other`'s names after these, taking its chunks as they are: this column must hold
    /// whole chunks of slots (``ChunkedColumn/append(chunksOf:)``), and `other` must compress with
    /// this column's codec, or this column must have none (all its names as they are: it takes
    /// `other`'s). `other`'s long names' slots are moved on past this column's chunks of bytes,
    /// in place: `other` is left to be dropped.
    mutating func append(contentsOf other: inout NameColumn) {
        precondition(other.codec == nil || codec == nil || other.codec === codec, "names compressed with two codecs")
        let moved = bytes.chunkCount
        if moved > 0 {
            for i in 0..<other.slots.count {
                let slot = other.slots[i]
                if !slot.isShort { other.slots[i] = slot.movedOn(byChunks: moved) }
            }
        }
        slots.append(chunksOf: other.slots)
        bytes.append(chunksOf: other.bytes)
        if codec == nil, let theirs = other.codec {
            codec = theirs
            sample = []
            sampleEnds = []
        } else if codec == nil {
            // Neither trained: the next name over the threshold trains on both samples.
            let base = sample.count
            sample.append(contentsOf: other.sample)
            sampleEnds.append(contentsOf: other.sampleEnds.map { $0 + base })
        }
    }

    /// Name `position`'s UTF-8 bytes, without making a `String` of a long one.
    @inline(__always)
    func withUTF8<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let slot = slots[position]
        if slot.isShort { return try slot.withShortUTF8(body) }
        if slot.isCompressed, let decoder = codec?.decoder {
            return try bytes.withBytes(slot) { try decoder.withDecoded($0, body) }
        }
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
        try slots.withReader { slots in
            try bytes.withBases { bases in try body(Reader(slots: slots, bases: bases, decoder: codec?.decoder)) }
        }
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
        fileprivate let decoder: NameCodec.Decoder?

        var count: Int { slots.count }

        @inline(__always)
        subscript(position: Int) -> String {
            let slot = slots[position]
            if slot.isShort { return slot.shortName }
            return withLongUTF8(slot) { String(decoding: $0, as: UTF8.self) }
        }

        /// Whether name `position` is held compressed (``NameCodec``).
        @inline(__always)
        func isCompressed(_ position: Int) -> Bool { slots[position].isCompressed }

        /// Name `position`'s UTF-8 bytes, without making a `String` of a long one.
        @inline(__always)
        func withUTF8<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            let slot = slots[position]
            if slot.isShort { return try slot.withShortUTF8(body) }
            return try withLongUTF8(slot, body)
        }

        /// A long slot's name's bytes: where they are, or decoded on the stack.
        @inline(__always)
        private func withLongUTF8<R>(_ slot: NameSlot, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            if slot.isCompressed, let decoder { return try decoder.withDecoded(NameBytes.bytes(slot, in: bases), body) }
            return try body(NameBytes.bytes(slot, in: bases))
        }

        /// Writes name `position`'s UTF-8 at `out`, where `room` bytes are free; returns how
        /// many bytes the name has, or nil when there is not room (a short name needs 16 bytes:
        /// its slot is stored whole, ``NameSlot/storeShort(at:)``).
        @inline(__always)
        func writeUTF8(_ position: Int, to out: UnsafeMutablePointer<UInt8>, room: Int) -> Int? {
            let slot = slots[position]
            if slot.isShort {
                guard room >= MemoryLayout<NameSlot>.size else { return nil }
                return slot.storeShort(at: UnsafeMutableRawPointer(out))
            }
            return withLongUTF8(slot) { name in
                guard name.count <= room else { return nil }
                if let source = name.baseAddress { ubq_copy(out, source, name.count) }
                return name.count
            }
        }

        /// Appends name `position`'s UTF-8 to `out`.
        @inline(__always)
        func appendUTF8(_ position: Int, to out: inout [UInt8]) {
            let slot = slots[position]
            if slot.isShort {
                var name = slot.shortName
                name.withUTF8 { out.append(contentsOf: $0) }
            } else {
                withLongUTF8(slot) { out.append(contentsOf: $0) }
            }
        }

        /// Negative, zero or positive as name `a` sorts before, with or after name `b`
        /// (``NameOrder/compare(_:_:)``). A compressed name is decoded ``NameColumn/comparedPrefix``
        /// bytes first, whole only when its first bytes do not decide
        /// (``NameOrder/orderOfPrefixes(_:isWhole:_:isWhole:)``).
        @inline(__always)
        func compare(_ a: Int, _ b: Int) -> Int {
            let x = slots[a], y = slots[b]
            guard x.isCompressed || y.isCompressed else {
                return withUTF8(a) { x in withUTF8(b) { y in NameOrder.compare(x, y) } }
            }
            let decided = withPrefix(x) { x, xIsWhole in
                withPrefix(y) { y, yIsWhole in NameOrder.orderOfPrefixes(x, isWhole: xIsWhole, y, isWhole: yIsWhole) }
            }
            if let decided { return decided }
            return withUTF8(a) { x in withUTF8(b) { y in NameOrder.compare(x, y) } }
        }

        /// Writes name `position`'s first bytes to `out` (room for ``prefixCapacity``): at least
        /// ``NameColumn/comparedPrefix`` of them, or the whole name; returns how many, and whether
        /// they are the whole name. For a sort that reads each name's first bytes once
        /// (``NameIndex/sortedByName(_:names:)``) and compares them with
        /// ``NameOrder/orderOfPrefixes(_:isWhole:_:isWhole:)``.
        @inline(__always)
        func copyPrefix(_ position: Int, to out: UnsafeMutablePointer<UInt8>) -> (count: Int, isWhole: Bool) {
            let slot = slots[position]
            if slot.isCompressed, let decoder {
                return decoder.decode(NameBytes.bytes(slot, in: bases), into: out, limit: NameColumn.comparedPrefix)
            }
            return withUTF8(position) { name in
                let count = Swift.min(name.count, NameColumn.comparedPrefix)
                if let base = name.baseAddress { out.update(from: base, count: count) }
                return (count, count == name.count)
            }
        }

        /// Room ``copyPrefix(_:to:)`` writes in: the prefix and a symbol's word past it.
        static let prefixCapacity = NameColumn.comparedPrefix + NameCodec.maxSymbolLength

        /// At least the first ``NameColumn/comparedPrefix`` bytes of a slot's name, and whether
        /// they are the whole name.
        @inline(__always)
        private func withPrefix<R>(_ slot: NameSlot, _ body: (UnsafeBufferPointer<UInt8>, Bool) -> R) -> R {
            if slot.isShort { return slot.withShortUTF8 { body($0, true) } }
            guard slot.isCompressed, let decoder else { return body(NameBytes.bytes(slot, in: bases), true) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: NameCodec.decodeCapacity) { buffer in
                let (count, isWhole) = decoder.decode(NameBytes.bytes(slot, in: bases), into: buffer.baseAddress!,
                                                      limit: NameColumn.comparedPrefix)
                return body(UnsafeBufferPointer(start: buffer.baseAddress!, count: count), isWhole)
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
    private static func name(_ slot: NameSlot, _ bytes: NameBytes, _ codec: NameCodec?) -> String {
        if slot.isShort { return slot.shortName }
        if slot.isCompressed, let decoder = codec?.decoder {
            return bytes.withBytes(slot) { decoder.withDecoded($0) { String(decoding: $0, as: UTF8.self) } }
        }
        return bytes.withBytes(slot) { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func store(_ name: String) -> NameSlot {
        if let short = NameSlot(short: name) { return short }
        var name = name
        return name.withUTF8 { storeLong($0) }
    }

    /// Stores a name that is not held in its slot: compressed when it is long enough, the codec
    /// is trained and that saves bytes; as it is otherwise.
    private mutating func storeLong(_ utf8: UnsafeBufferPointer<UInt8>) -> NameSlot {
        guard Self.isCompressible(count: utf8.count) else { return bytes.append(utf8) }
        guard let codec else {
            learn(utf8)
            return bytes.append(utf8)
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: NameCodec.encodeCapacity) { buffer in
            let count = codec.encode(utf8, into: buffer.baseAddress!)
            // Only when it saves bytes.
            guard count < utf8.count else { return bytes.append(utf8) }
            return bytes.append(UnsafeBufferPointer(start: buffer.baseAddress!, count: count), decodedCount: utf8.count)
        }
    }

    /// Keeps a name over the threshold for the codec's training; trains it once there are
    /// ``trainingBytes`` of them.
    private mutating func learn(_ name: UnsafeBufferPointer<UInt8>) {
        sample.append(contentsOf: name)
        sampleEnds.append(sample.count)
        guard sample.count >= Self.trainingBytes else { return }
        codec = NameCodec(trainingOn: sample, ends: sampleEnds)
        sample = []
        sampleEnds = []
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
            // Compressed bytes are copied as they are: the codec does not change.
            slots[i] = old.withBytes(slot) { fresh.append($0, decodedCount: slot.isCompressed ? slot.decodedCount : nil) }
        }
        bytes = fresh
    }
}

extension NameColumn: Sendable {}
