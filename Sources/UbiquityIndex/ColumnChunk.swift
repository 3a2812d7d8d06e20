/// The storage of one chunk of a ``ChunkedColumn``: room for up to a chunk's values (4,096, fewer
/// of large ones), the first `count` of them initialized.
///
/// A class so that a column and the snapshot copied from it can share a chunk, and the column can
/// ask whether it holds the only reference before writing (copy on write, chunk by chunk). Its
/// memory is allocated here and never moves while the chunk lives: the column keeps each chunk's
/// `base` beside it and reads through it without touching the chunk's reference count.
final class ColumnChunk<Element> {
    let base: UnsafeMutablePointer<Element>
    let capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    /// The values of `other`, in a new chunk with room for `capacity` (at least `other.count`).
    /// - Parameter moving: `other` is held by nobody else: its values are moved, not copied.
    init(from other: ColumnChunk, capacity: Int, moving: Bool) {
        precondition(capacity >= other.count, "a chunk of \(capacity) for \(other.count) values")
        base = .allocate(capacity: capacity)
        self.capacity = capacity
        if moving {
            base.moveInitialize(from: other.base, count: other.count)
            count = other.count
            other.count = 0
        } else {
            base.initialize(from: other.base, count: other.count)
            count = other.count
        }
    }

    /// Adds a value after the last one; the caller made sure there is room and that the chunk is
    /// its own.
    @inline(__always)
    func append(_ element: Element) {
        precondition(count < capacity, "a full chunk of \(capacity) values")
        (base + count).initialize(to: element)
        count += 1
    }

    /// Adds `values` after the last one (a name's bytes, ``NameBytes``); the caller made sure
    /// there is room and that the chunk is its own.
    @inline(__always)
    func append(contentsOf values: UnsafeBufferPointer<Element>) {
        precondition(values.count <= capacity - count, "\(values.count) values for a chunk with room for \(capacity - count)")
        guard let source = values.baseAddress else { return }
        (base + count).initialize(from: source, count: values.count)
        count += values.count
    }

    /// Takes out the last value; the caller made sure the chunk is its own and not empty.
    func removeLast() -> Element {
        precondition(count > 0, "an empty chunk")
        count -= 1
        return (base + count).move()
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }
}
