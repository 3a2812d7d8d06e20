import Synchronization

/// Result items of one list of one line, kept as the bytes the daemon wrote them in: ranges of
/// the line (``ReceivedLine``), which stays as long as they do. Items are read into their path
/// and attributes a block of 256 at a time, the first time code asks one of the block for them.
///
/// Reading a 100k-item answer into a dictionary and two strings per item took longer than the
/// daemon's sending it; `ubiq query --json` prints each item as these bytes instead, and never
/// reads them. Only items ``CanonicalItem`` recognised are kept here: their bytes are what
/// ``WireItem/writeJSON(to:)`` writes for what they decode to.
///
/// Blocks, without a lock: a thread reads the block it needs and publishes it with one
/// compare-and-exchange; two threads that need the same unread block at once both read it and
/// the first one's copy is kept. `grocery list` hands the items to four threads, each a quarter:
/// an item read alone behind a lock made its threads fight over the lock (1.6 s instead of
/// 0.16 s at times), and the whole list read by the first thread made the three others wait
/// (10 ms more CPU, 6 ms more wall time than reading the list before the threads start).
package final class EncodedItems: Sendable {
    static let blockSize = 256

    private let line: ReceivedLine
    /// Where each item starts and ends in the line.
    private let starts: [Int]
    private let ends: [Int]
    /// One per block of items.
    private let slots: [Slot]

    /// A block's items once read: nil before; set once, never changed afterwards.
    private final class Slot: Sendable {
        /// Retained by the slot while it lives.
        let read = Atomic<Unmanaged<Block>?>(nil)

        deinit {
            read.load(ordering: .acquiring)?.release()
        }
    }

    /// The fields of a block's items, in order.
    private final class Block: Sendable {
        let items: [WireItem.Fields]
        init(_ items: [WireItem.Fields]) { self.items = items }
    }

    init(line: ReceivedLine, starts: [Int], ends: [Int]) {
        self.line = line
        self.starts = starts
        self.ends = ends
        slots = (0..<((ends.count + EncodedItems.blockSize - 1) / EncodedItems.blockSize)).map { _ in Slot() }
    }

    package var count: Int { ends.count }

    /// The bytes of the items, without what is between them.
    package var byteCount: Int { zip(starts, ends).reduce(0) { $0 + ($1.1 - $1.0) } }

    /// Every item, in order.
    package var items: [WireItem] { (0..<count).map(item) }

    package func item(_ index: Int) -> WireItem { WireItem(self, index: index) }

    /// Appends the item's bytes: its JSON text.
    func write(_ item: Int, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line.bytes[starts[item]..<ends[item]]))
    }

    /// Appends every item and a `\n` after each. Items that follow each other with one byte
    /// between them (a list as the daemon writes it) are copied in one go, that byte then made a
    /// `\n`: an answer's 100k items, one at a time, cost `ubiq query --json` several milliseconds.
    package func writeLines(to out: inout [UInt8]) {
        guard let first = starts.first, let last = ends.last else { return }
        var adjacent = true
        for item in 1..<max(ends.count, 1) where starts[item] != ends[item - 1] + 1 {
            adjacent = false
            break
        }
        guard adjacent else {
            for item in 0..<count {
                write(item, to: &out)
                out.append(UInt8(ascii: "\n"))
            }
            return
        }
        let base = out.count - first
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line.bytes[first..<last]))
        out.withUnsafeMutableBufferPointer { written in
            for end in ends.dropLast() { written[base + end] = UInt8(ascii: "\n") }
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// `body` run on the item's path and attributes; the first call for an item of a block reads
    /// the block's.
    ///
    /// The block is lent, not retained: its slot holds it until the slot goes with this object,
    /// and the caller holds this object.
    func withFields<T>(_ item: Int, _ body: (borrowing WireItem.Fields) -> T) -> T {
        let slot = slots[item / EncodedItems.blockSize]
        let block = slot.read.load(ordering: .acquiring) ?? read(block: item / EncodedItems.blockSize, into: slot)
        return block._withUnsafeGuaranteedRef { body($0.items[item % EncodedItems.blockSize]) }
    }

    private func read(block: Int, into slot: Slot) -> Unmanaged<Block> {
        let first = block * EncodedItems.blockSize
        let read = Unmanaged.passRetained(Block((first..<min(ends.count, first + EncodedItems.blockSize)).map(decode)))
        let (exchanged, current) = slot.read.compareExchange(expected: nil, desired: read, ordering: .acquiringAndReleasing)
        guard !exchanged, let current else { return read }
        read.release()      // another thread was first
        return current
    }

    private func decode(_ item: Int) -> WireItem.Fields {
        var scanner = JSONScanner(UnsafeBufferPointer(rebasing: line.bytes[starts[item]..<ends[item]]))
        // Never nil: CanonicalItem accepted these bytes, and what it accepts the scanner reads
        // (CanonicalItemTests). An empty item rather than a trap if that ever broke.
        guard let item = try? scanner.wireItem() else { return WireItem.Fields(path: "", oldPath: nil, attributes: [:]) }
        return item.fields
    }
}
