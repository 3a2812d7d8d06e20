/// The first list of result items of a line that is still arriving, checked item by item as its
/// bytes come in, so that reading the whole line afterwards has little left to do.
///
/// A 100k-item answer is a 20–30 MB line that takes the daemon tens of milliseconds to send.
/// Checked only once it was whole, its items (``CanonicalItem``) kept the client busy for another
/// 13–20 ms after the last byte; checked while the rest is on its way, they cost no wall time.
///
/// Call ``advance(over:)`` with the bytes of the line received so far (always the same line, from
/// its first byte); ``JSONScanner/wireItems()`` then starts where the scan stopped. The scan only
/// keeps items ``CanonicalItem`` accepts, each together with the `,` or `]` after it; at the first
/// anything else — whitespace, an item that is not canonical, a malformed line — it stops (as soon
/// as enough bytes past it have arrived to tell it from an item cut short), and the whole line's
/// reading takes over from there, reporting what it finds as it always did. An item
/// accepted from a prefix ends where it ends in the whole line: the check looks at no byte after
/// the item's closing `}` (`ItemListScanTests` compare both readings on random lines cut at
/// random places).
package struct ItemListScan: Sendable {
    /// Where the list's `[` is in the line; nil until the members before it have arrived.
    private(set) var listStart: Int?
    /// The items accepted: where each starts and ends in the line.
    private(set) var starts: [Int] = []
    private(set) var ends: [Int] = []
    /// Where the next item starts: after the last accepted item's `,` (or `]`).
    private(set) var next = 0
    /// The list's `]` has been read.
    private(set) var finished = false
    /// Given up: the line's reading does the rest.
    private(set) var stopped = false

    /// Members before the list longer than this, or an item not recognised with this many bytes
    /// of it received, stop the scan: the daemon writes neither, and a line that has them is read
    /// whole afterwards as before.
    static let lookahead = 1 << 16

    package init() {}

    /// Scans what `received` (the line's bytes so far) adds to what was scanned before.
    package mutating func advance(over received: UnsafeBufferPointer<UInt8>) {
        guard !finished, !stopped else { return }
        if listStart == nil {
            var scanner = JSONScanner(received)
            guard let start = scanner.firstItemListStart() else {
                if received.count >= ItemListScan.lookahead { stopped = true }
                return
            }
            listStart = start
            next = start + 1
        }
        while next < received.count {
            if starts.isEmpty, received[next] == UInt8(ascii: "]") {
                next += 1   // `[]`
                finished = true
                return
            }
            let (accepted, stoppedAt) = CanonicalItem.check(in: received, from: next)
            guard let end = accepted else {
                // Cut short, perhaps: wait for more bytes. Anything else will never be accepted.
                if received.count - stoppedAt >= CanonicalItem.lookahead || received.count - next >= ItemListScan.lookahead {
                    stopped = true
                }
                return
            }
            guard end < received.count else { return }  // its `,` or `]` has not arrived yet
            switch received[end] {
            case UInt8(ascii: ","):
                break
            case UInt8(ascii: "]"):
                finished = true
            default:
                stopped = true
                return
            }
            starts.append(next)
            ends.append(end)
            next = end + 1
            if finished { return }
        }
    }

    /// Whether the line's reading can start from this scan for a list whose `[` is at `start`:
    /// the scan found that list, and accepted at least one item of it (or read it whole).
    func covers(listAt start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // The offsets are checked against the bytes too: a scan of other bytes is not used.
        listStart == start && (finished || !starts.isEmpty) && next <= bytes.count
    }
}
