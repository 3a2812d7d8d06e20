/// One column of the index (``MetadataIndex``) kept in chunks of 4,096 values, each its own array.
///
/// Why not one array: a snapshot of the index (``IndexSnapshot/View``) shares the columns with
/// the engine while it is encoded on another thread, and the engine's next write to a shared array
/// copies all of it — at a million entries the statuses alone are 64 MB, tens of milliseconds on
/// the engine. Shared chunk by chunk, a write copies the list of chunks (a pointer per 4,096 values)
/// and the one chunk it writes to.
struct ChunkedColumn<Element>: RandomAccessCollection, MutableCollection {
    static var chunkShift: Int { 12 }
    static var chunkSize: Int { 1 << chunkShift }

    private var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    init(_ elements: [Element]) {
        self.init()
        reserveCapacity(elements.count)
        for element in elements { append(element) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "index out of range")
            return chunks[position &>> Self.chunkShift][position & (Self.chunkSize - 1)]
        }
        set {
            precondition(position >= 0 && position < count, "index out of range")
            chunks[position &>> Self.chunkShift][position & (Self.chunkSize - 1)] = newValue
        }
    }

    mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    /// Room for `capacity` values in the list of chunks (each chunk is made whole when first used).
    mutating func reserveCapacity(_ capacity: Int) {
        chunks.reserveCapacity((capacity + Self.chunkSize - 1) >> Self.chunkShift)
    }

    var capacity: Int { chunks.capacity << Self.chunkShift }
}

extension ChunkedColumn: Sendable where Element: Sendable {}
