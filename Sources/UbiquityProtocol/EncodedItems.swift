import Synchronization
import UbiquityPredicate

/// Result items of one list of one line, kept as the bytes the daemon wrote them in: ranges of
/// the line (``ReceivedLine``), which stays as long as they do. The first time code asks for any
/// item's path or attributes, the whole list is read into them, once.
///
/// Reading a 100k-item answer into a dictionary and two strings per item took longer than the
/// daemon's sending it; `ubiq query --json` prints each item as these bytes instead, and never
/// reads them. Only items ``CanonicalItem`` recognised are kept here: their bytes are what
/// ``WireItem/writeJSON(to:)`` writes for what they decode to.
///
/// Whole lists, not single items: code that reads one item's fields reads them all (a table, a
/// merge, grocery's four threads), and then reads them without a lock. An item read on its own,
/// with the cache behind a lock, made `grocery list` take 1.6 s instead of 0.16 s at times: its
/// four threads fought over that lock.
final class EncodedItems: Sendable {
    private let line: ReceivedLine
    /// Where each item starts and ends in the line.
    private let starts: [Int]
    private let ends: [Int]
    /// The list once read, retained by this object; published once, never changed afterwards.
    private let read = Atomic<Unmanaged<Decoded>?>(nil)
    /// Held while the list is read, so that it is read once.
    private let reading = Mutex(())

    /// The fields of every item, in order.
    private final class Decoded: Sendable {
        let items: [WireItem.Fields]
        init(_ items: [WireItem.Fields]) { self.items = items }
    }

    init(line: ReceivedLine, starts: [Int], ends: [Int]) {
        self.line = line
        self.starts = starts
        self.ends = ends
    }

    deinit {
        read.load(ordering: .acquiring)?.release()
    }

    var count: Int { ends.count }

    /// Appends the item's bytes: its JSON text.
    func write(_ item: Int, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line.bytes[starts[item]..<ends[item]]))
    }

    /// `body` run on the item's path and attributes; the first call reads every item's.
    ///
    /// The list is lent, not retained: this object holds it until it goes, and the caller holds
    /// this object (grocery's four threads would otherwise retain and release the one list
    /// object for every field they read).
    func withFields<T>(_ item: Int, _ body: (borrowing WireItem.Fields) -> T) -> T {
        let decoded = read.load(ordering: .acquiring) ?? readAll()
        return decoded._withUnsafeGuaranteedRef { body($0.items[item]) }
    }

    private func readAll() -> Unmanaged<Decoded> {
        reading.withLock { _ in
            if let decoded = read.load(ordering: .acquiring) { return decoded }
            let decoded = Unmanaged.passRetained(Decoded(ends.indices.map(decode)))
            read.store(decoded, ordering: .releasing)
            return decoded
        }
    }

    private func decode(_ item: Int) -> WireItem.Fields {
        var scanner = JSONScanner(UnsafeBufferPointer(rebasing: line.bytes[starts[item]..<ends[item]]))
        // Never nil: CanonicalItem accepted these bytes, and what it accepts the scanner reads
        // (CanonicalItemTests). An empty item rather than a trap if that ever broke.
        guard let item = try? scanner.wireItem() else { return WireItem.Fields(path: "", oldPath: nil, attributes: [:]) }
        return item.fields
    }
}
