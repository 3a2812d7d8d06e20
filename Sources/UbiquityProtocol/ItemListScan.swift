/// The first list of result items of a long line, taken a read at a time as the line arrives: each
/// item ``CanonicalItem`` accepts stays where it was read (a range of that read's buffer,
/// ``EncodedItems``), so the line is never gathered into one buffer, and nothing is left to
/// check once its end comes.
///
/// A 100k-item answer is a 20–30 MB line that the daemon sends over tens of milliseconds.
/// Gathered whole, it cost the client a buffer copied and grown to the next power of two (about
/// 27 ms of CPU per 19 MB in `ubiq query`, most of it page faults), and checked only once whole,
/// another 13–20 ms after the last byte.
///
/// Call ``take(_:keptBy:)`` with each read's bytes after the list's `[`. The scan keeps the items
/// it accepts, each only together with the `,` or `]` after it. At the first anything else —
/// whitespace, an item that is not canonical, a malformation — it ends (as soon as enough bytes
/// past it have arrived to tell it from an item cut short) and says where the rest of the line
/// starts: at the separator after the last item it kept. The line without its kept items is then
/// read as usual (``ListedItems``), and reports what it finds as it always did (`ItemListScanTests`
/// cut random and mutated lines at random places and compare both readings).
package struct ItemListScan: Sendable {
    /// The items kept and not yet handed over, in order: one piece per read they were found in.
    private var pieces: [EncodedItems] = []
    /// How many items were kept in all.
    package private(set) var count = 0
    /// The start of an item whose end has not arrived: copied out of the read it came in.
    private var carry: [UInt8] = []

    /// An item not recognised with this many bytes of it received ends the scan: the daemon
    /// writes none that long, and the rest of the line is read as it comes.
    package static let lookahead = 1 << 16

    package init() {}

    /// The first item list of a line, from the line's first bytes: under the object's first
    /// member named `results`, `added`, `changed` or `removed`. Nil when the bytes end first, or
    /// are not an object's members, or that member is not a list.
    package static func head(of bytes: UnsafeRawBufferPointer) -> ListHead? {
        var scanner = JSONScanner(bytes.assumingMemoryBound(to: UInt8.self))
        return scanner.firstItemList()
    }

    /// The pieces kept since the last call, handed over: the scan holds on to no item it
    /// handed over (their buffers go back to the reader once their taker is done with them).
    package mutating func takePieces() -> [EncodedItems] {
        defer { pieces = [] }
        return pieces
    }

    /// Where the list's rest starts once the scan is over: `prefix` (bytes held over from earlier
    /// reads), then this read's bytes from `index` on.
    package struct End: Sendable, Equatable {
        package var prefix: [UInt8]
        package var index: Int
    }

    /// Bytes held over, waiting for the rest of an item.
    package var carriedBytes: Int { carry.count }

    /// Takes the next bytes of the list (the first call: those right after its `[`). Returns nil
    /// while the list goes on past them; otherwise where the rest of the line starts.
    ///
    /// - Parameter owner: keeps `bytes` where they are, unchanged, for as long as it lives (the
    ///   buffer of the read): the items kept refer to them.
    package mutating func take(_ bytes: UnsafeRawBufferPointer, keptBy owner: AnyObject) -> End? {
        let chunk = bytes.assumingMemoryBound(to: UInt8.self)
        var index = 0
        if !carry.isEmpty {
            switch finishCarriedItem(chunk) {
            case .needsMore: return nil
            case .ended(let end): return end
            case .continueAt(let next): index = next
            }
        }
        var starts: [Int] = [], ends: [Int] = []
        // A daemon's item is a path and a name, rarely under 128 bytes: room for a read's items at
        // once (smaller ones grow the arrays once), as growing them as they came cost a tenth of
        // the scan. The arrays stay with the items (EncodedItems).
        starts.reserveCapacity(chunk.count / 128 + 1)
        ends.reserveCapacity(chunk.count / 128 + 1)
        defer {
            if !ends.isEmpty {
                keep(EncodedItems(line: ReceivedLine(bytes: bytes, keptBy: owner), starts: starts, ends: ends))
            }
        }
        while index < chunk.count {
            if count + ends.count == 0, chunk[index] == UInt8(ascii: "]") {
                return End(prefix: [], index: index)    // `[]`
            }
            let (accepted, stoppedAt) = CanonicalItem.check(in: chunk, from: index)
            guard let end = accepted, end < chunk.count else {
                // Cut short, perhaps: hold it over. Anything else will never be accepted.
                let mayBeCut = accepted != nil || chunk.count - stoppedAt < CanonicalItem.lookahead
                if mayBeCut, chunk.count - index < ItemListScan.lookahead {
                    carry = Array(UnsafeBufferPointer(rebasing: chunk[index...]))
                    return nil
                }
                return End(prefix: separatorBefore(kept: ends.count), index: index)
            }
            switch chunk[end] {
            case UInt8(ascii: ","):
                starts.append(index)
                ends.append(end)
                index = end + 1
            case UInt8(ascii: "]"):
                starts.append(index)
                ends.append(end)
                return End(prefix: [], index: end)
            default:
                return End(prefix: separatorBefore(kept: ends.count), index: index)
            }
        }
        return nil
    }

    /// When the bytes held over hold a `\n` (the line ended inside the list, which the daemon
    /// never does), how many of them follow it: the next line's. Only ``end()`` makes sense then.
    package var bytesAfterCarriedNewline: Int? {
        carry.firstIndex(of: UInt8(ascii: "\n")).map { carry.count - $0 - 1 }
    }

    /// Ends the scan where it is, for a line that ended inside the list: what follows the last
    /// item kept (a `,` when there is one) and the bytes held over.
    package mutating func end() -> [UInt8] {
        giveUp(held: carry.count).prefix
    }

    private enum CarriedItem {
        case needsMore
        case ended(End)
        case continueAt(Int)
    }

    /// The item held over, completed with the first bytes of `chunk`: a few at first, more only
    /// while the item may still be cut short (copying a whole read here cost as much as checking it).
    private mutating func finishCarriedItem(_ chunk: UnsafeBufferPointer<UInt8>) -> CarriedItem {
        let held = carry.count
        var taken = min(chunk.count, ItemListScan.firstLook)
        while true {
            var combined = carry
            combined.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<taken]))
            let (accepted, stoppedAt) = combined.withUnsafeBufferPointer { CanonicalItem.check(in: $0, from: 0) }
            guard let end = accepted, end < combined.count else {
                let mayBeCut = accepted != nil || combined.count - stoppedAt < CanonicalItem.lookahead
                guard mayBeCut, combined.count < ItemListScan.lookahead else { return .ended(giveUp(held: held)) }
                if taken < chunk.count {
                    taken = min(chunk.count, taken * 8)
                    continue
                }
                carry = combined
                return .needsMore
            }
            let separator = combined[end]
            guard separator == UInt8(ascii: ",") || separator == UInt8(ascii: "]") else { return .ended(giveUp(held: held)) }
            // `end` >= `held`: the item held over was not whole, or its separator had not arrived.
            let item = combined.withUnsafeBufferPointer { ReceivedLine(copying: UnsafeBufferPointer(rebasing: $0[..<end])) }
            keep(EncodedItems(line: item, starts: [0], ends: [end]))
            carry = []
            if separator == UInt8(ascii: "]") { return .ended(End(prefix: [], index: end - held)) }
            return .continueAt(end - held + 1)
        }
    }

    /// How many bytes of the next read a held-over item is first completed with: more than the
    /// daemon's items take.
    static let firstLook = 1 << 12

    /// The end where an item held over is not one: the rest starts with it.
    private mutating func giveUp(held: Int) -> End {
        let end = End(prefix: separatorBefore(kept: 0) + carry[..<held], index: 0)
        carry = []
        return end
    }

    /// The `,` before an item that is not kept, when an item before it was: the rest of the line
    /// starts at the separator after the last item kept.
    private func separatorBefore(kept: Int) -> [UInt8] {
        count + kept == 0 ? [] : [UInt8(ascii: ",")]
    }

    private mutating func keep(_ piece: EncodedItems) {
        pieces.append(piece)
        count += piece.count
    }
}
