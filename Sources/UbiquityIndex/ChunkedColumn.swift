/// One column of the index (``MetadataIndex``) kept in chunks of 4,096 values, each its own
/// allocation (``ColumnChunk``).
///
/// Why not one array: a snapshot of the index (``IndexSnapshot/View``) shares the columns with
/// the engine while it is encoded on another thread, and the engine's next write to a shared
/// array copies all of it — at a million entries the statuses alone are 64 MB, and the names,
/// parents, flags, containers and generations 27 MB more: tens of milliseconds on the engine.
/// Shared chunk by chunk, a write copies the list of chunks (a pointer per 4,096 values) and the
/// one chunk it writes to.
///
/// ```
/// column:   chunks [A, B, C]   bases [a, b, c]   count 10,000
/// snapshot: a copy of the column: both lists share A, B, C
/// column[5,000] = x: the lists copied (3 pointers each), B copied into B' (4,096 values), x
///           written there: column [A, B', C], snapshot [A, B, C]
/// ```
///
/// Reads go through `bases`, each chunk's first value, kept beside the chunk that owns it: a
/// value is two loads, with no reference counting (``Reader`` also drops the bounds checks, for
/// loops over many slots). A chunk is written only while the column holds the only reference to
/// it, so a chunk a snapshot shares is never written.
struct ChunkedColumn<Element>: RandomAccessCollection, MutableCollection {
    /// 4,096 values a chunk, fewer of values over 64 bytes (a history entry): a chunk copied
    /// stays within 256 KiB.
    static var chunkShift: Int {
        let stride = MemoryLayout<Element>.stride
        return stride <= 64 ? 12 : stride <= 128 ? 11 : stride <= 256 ? 10 : 9
    }
    static var chunkSize: Int { 1 << chunkShift }
    /// The first chunk starts this small and doubles up to ``chunkSize``: a test's index of ten
    /// entries does not allocate 4,096 slots a column. Every later chunk is whole from the start.
    static var smallestChunk: Int { 16 }

    /// Who owns each chunk's storage: what copy on write asks.
    private var chunks: [ColumnChunk<Element>] = []
    /// Each chunk's storage, read without retaining its owner; `bases[c] == chunks[c].base`.
    private var bases: [UnsafeMutablePointer<Element>] = []
    private(set) var count = 0

    init() {}

    init(_ elements: some Sequence<Element>) {
        self.init()
        reserveCapacity(elements.underestimatedCount)
        for element in elements { append(element) }
    }

    /// `count` copies of `element`.
    init(repeating element: Element, count: Int) {
        self.init()
        reserveCapacity(count)
        for _ in 0..<count { append(element) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        @inline(__always) get {
            precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "index \(position) out of range 0..<\(count)")
            return bases.withUnsafeBufferPointer { $0[position &>> Self.chunkShift][position & (Self.chunkSize - 1)] }
        }
        set {
            precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "index \(position) out of range 0..<\(count)")
            let c = position &>> Self.chunkShift
            makeUnique(c)
            bases[c][position & (Self.chunkSize - 1)] = newValue
        }
    }

    mutating func append(_ element: Element) {
        let c = count &>> Self.chunkShift
        if c == chunks.count {
            let chunk = ColumnChunk<Element>(capacity: c == 0 ? Self.smallestChunk : Self.chunkSize)
            chunks.append(chunk)
            bases.append(chunk.base)
        } else {
            makeUnique(c)
            if chunks[c].count == chunks[c].capacity { resize(c, to: Swift.min(chunks[c].capacity * 2, Self.chunkSize)) }
        }
        chunks[c].append(element)
        count += 1
    }

    /// Adds `values` after the last one, a chunk's worth at a time: each chunk is made the
    /// column's own and given room once, where ``append(_:)`` asks both of every value (a
    /// restore's decoding appended six million values one at a time: a third of its time).
    mutating func append(contentsOf values: UnsafeBufferPointer<Element>) {
        // The last chunk's room (and the first chunk's size) as for any reservation; later chunks are whole.
        reserveCapacity(count + values.count)
        var next = 0
        while next < values.count {
            let c = count &>> Self.chunkShift
            if c == chunks.count {
                let chunk = ColumnChunk<Element>(capacity: Self.chunkSize)
                chunks.append(chunk)
                bases.append(chunk.base)
            } else {
                makeUnique(c)
            }
            let taken = Swift.min(chunks[c].capacity - chunks[c].count, values.count - next)
            chunks[c].append(contentsOf: UnsafeBufferPointer(rebasing: values[next..<next + taken]))
            count += taken
            next += taken
        }
    }

    /// ``append(contentsOf:)`` of an array's values.
    mutating func append(contentsOf values: [Element]) {
        values.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Adds every value of `other` after the last one by taking its chunks as they are (shared
    /// with it until either writes): this column must hold whole chunks (a count that is a
    /// multiple of ``chunkSize``). Two halves of a saved index decoded apart (``IndexSnapshot``).
    mutating func append(chunksOf other: ChunkedColumn) {
        precondition(count & (Self.chunkSize - 1) == 0 && count == chunks.count << Self.chunkShift,
                     "\(count) values in \(chunks.count) chunks: not whole chunks")
        chunks.append(contentsOf: other.chunks)
        bases.append(contentsOf: other.bases)
        count += other.count
    }

    /// Removes and returns the last value (nil when there is none); a chunk left empty goes.
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        let c = (count - 1) &>> Self.chunkShift
        makeUnique(c)
        let element = chunks[c].removeLast()
        count -= 1
        if chunks[c].count == 0 {
            chunks.removeLast()
            bases.removeLast()
        }
        return element
    }

    /// Lets go of the first `chunkCount` chunks, whole (``chunkSize`` values each): value
    /// `chunkCount * chunkSize` becomes value 0. For a column that only grows at its end and is
    /// let go of from its start (the change history), without moving any value.
    mutating func removeFirstChunks(_ chunkCount: Int) {
        precondition(chunkCount >= 0 && chunkCount << Self.chunkShift <= count, "\(chunkCount) chunks of \(count) values")
        chunks.removeFirst(chunkCount)
        bases.removeFirst(chunkCount)
        count -= chunkCount << Self.chunkShift
    }

    /// Room for `capacity` values: in the list of chunks, and in the last chunk (every chunk
    /// added later is whole).
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > count else { return }
        let chunkCount = (capacity + Self.chunkSize - 1) >> Self.chunkShift
        chunks.reserveCapacity(chunkCount)
        bases.reserveCapacity(chunkCount)
        if chunks.isEmpty {
            let chunk = ColumnChunk<Element>(capacity: Swift.min(Swift.max(capacity, Self.smallestChunk), Self.chunkSize))
            chunks.append(chunk)
            bases.append(chunk.base)
        } else {
            let last = chunks.count - 1
            let wanted = Swift.min(capacity - (last << Self.chunkShift), Self.chunkSize)
            // At least doubled: listings that each ask for a little more move a chunk rarely.
            if chunks[last].capacity < wanted { resize(last, to: Swift.min(Swift.max(wanted, chunks[last].capacity * 2), Self.chunkSize)) }
        }
    }

    /// Values the column holds without allocating: the chunks it has, the last one's room included.
    var capacity: Int { chunks.isEmpty ? 0 : ((chunks.count - 1) << Self.chunkShift) + chunks[chunks.count - 1].capacity }

    /// Reads the column's values without a bounds check or a reference count each, for loops
    /// over many slots; `body` must not change the column.
    func withReader<R>(_ body: (Reader) throws -> R) rethrows -> R {
        try bases.withUnsafeBufferPointer { try body(Reader(bases: $0, count: count)) }
    }

    /// A column's values as ``withReader(_:)`` lends them.
    struct Reader {
        fileprivate let bases: UnsafeBufferPointer<UnsafeMutablePointer<Element>>
        let count: Int

        /// Value `position`, which must be below ``count`` (checked in debug builds only).
        @inline(__always)
        subscript(position: Int) -> Element {
            assert(position >= 0 && position < count, "index \(position) out of range 0..<\(count)")
            return bases[position &>> ChunkedColumn.chunkShift][position & (ChunkedColumn.chunkSize - 1)]
        }

        /// Where value `position` is in memory, to ask for it ahead of its use (a prefetch).
        @inline(__always)
        func address(_ position: Int) -> UnsafePointer<Element> {
            UnsafePointer(bases[position &>> ChunkedColumn.chunkShift] + (position & (ChunkedColumn.chunkSize - 1)))
        }
    }

    /// Who owns chunk `c`'s storage. A caller that keeps this reference knows the chunk's values
    /// stay as they are: the column copies a chunk anyone else holds before writing to it.
    func chunkOwner(_ c: Int) -> AnyObject { chunks[c] }

    /// Chunk `c` made the column's own before a write: copied when anyone else holds it.
    @inline(__always)
    private mutating func makeUnique(_ c: Int) {
        if !isKnownUniquelyReferenced(&chunks[c]) { replace(c, with: ColumnChunk(from: chunks[c], capacity: chunks[c].capacity, moving: false)) }
    }

    /// Chunk `c` moved (or, if shared, copied) into one with room for `capacity` values.
    private mutating func resize(_ c: Int, to capacity: Int) {
        let unique = isKnownUniquelyReferenced(&chunks[c])
        replace(c, with: ColumnChunk(from: chunks[c], capacity: capacity, moving: unique))
    }

    private mutating func replace(_ c: Int, with chunk: ColumnChunk<Element>) {
        chunks[c] = chunk
        bases[c] = chunk.base
    }
}

// A chunk is written only through a column that holds the only reference to it (`makeUnique`,
// `resize`), as an array writes its buffer only when unique: a copy sent to another thread shares
// chunks that nobody writes any more. The pointers in `bases` are owned by `chunks`, which travel
// with them.
extension ChunkedColumn: @unchecked Sendable where Element: Sendable {}
