/// The items of a line's first list that ``ItemListScan`` kept as they arrived, and where that
/// list is in the line left without them: its `[` at ``listStart``, followed directly by the
/// separator after the last item kept (`,` when more items follow, `]` when none do).
///
/// The line is read as if the kept items stood between the two (``JSONScanner/wireItems()``).
/// Items handed on elsewhere while the line arrived (`MetadataQuery.gather`) are not among
/// ``pieces``: the list then holds only the items after them. When reading fails and every item
/// is here, the line is put together whole again and read as any other line, so that the error is
/// the same one, at the same byte.
package struct ListedItems: Sendable {
    /// Where the list's `[` is in the line without the items.
    package let listStart: Int
    let pieces: [EncodedItems]
    /// How many items the scan kept, handed on elsewhere or not.
    package let count: Int

    package init(listStart: Int, pieces: [EncodedItems], count: Int) {
        self.listStart = listStart
        self.pieces = pieces
        self.count = count
    }

    /// Whether every item kept is here: the line can be put together whole.
    var isComplete: Bool { pieces.reduce(0) { $0 + $1.count } == count }

    /// The items here, in order.
    var items: [WireItem] {
        var items: [WireItem] = []
        items.reserveCapacity(count)
        for piece in pieces { items.append(contentsOf: piece.items) }
        return items
    }

    /// The whole line, from the line without the items: what the daemon sent.
    func whole(_ line: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        guard listStart < line.count else { return Array(line) }
        bytes.reserveCapacity(line.count + pieces.reduce(count) { $0 + $1.byteCount })
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[...listStart]))
        var first = true
        for piece in pieces {
            for index in 0..<piece.count {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                piece.write(index, to: &bytes)
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[(listStart + 1)...]))
        return bytes
    }
}
