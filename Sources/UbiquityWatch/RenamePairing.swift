/// Walks the events of one read in order and pairs each `IN_MOVED_FROM` with its `IN_MOVED_TO`
/// by cookie, so a rename is one step. Pure: the caller owns the reading.
///
/// ```
/// events:  CREATE a │ MOVED_FROM x (c=7) │ MODIFY b │ MOVED_TO y (c=7) │ MOVED_FROM z (c=9) ▌
/// steps:   .event(0)  .rename(1, 3)        .event(2)                      .awaitPartner
///          … the caller waits up to the pairing window and appends what came: MOVED_TO w (c=9)
///          .rename(4, 5)        (or, when nothing came, .movedOut(4))
/// ```
///
/// A `MOVED_FROM` that ends the read asks once for its partner (``Step/awaitPartner``): the
/// kernel queues the two halves together, but a read can end between them.
struct RenamePairing {
    enum Step: Equatable {
        /// The kernel queue overflowed (`IN_Q_OVERFLOW`, `wd == -1`): events were lost.
        case overflow
        /// Any event but a move-from (a `MOVED_TO` paired already is never returned).
        case event(Int)
        /// A move-from and its move-to: one rename.
        case rename(from: Int, to: Int)
        /// A move-from without partner: moved out of everything watched through this queue.
        case movedOut(Int)
        /// The last event is a move-from still without partner: read more (append them and call
        /// ``arrived(_:from:)``), then ask again; the answer is then a rename or a move out.
        case awaitPartner
    }

    private var arrivals: [UInt32: [Int]] = [:]
    private var paired = Set<Int>()
    private var position = 0
    private var awaited: Int?

    /// Pairs within `events` (the first read).
    init(_ events: [InotifyEvent]) { arrived(events, from: 0) }

    /// Events from `start` on were appended to the read.
    mutating func arrived(_ events: [InotifyEvent], from start: Int) {
        for index in start..<events.count where events[index].mask.contains(.movedTo) {
            arrivals[events[index].cookie, default: []].append(index)
        }
    }

    /// The next step over `events` (the same array, perhaps grown), nil when every event is used.
    mutating func next(_ events: [InotifyEvent]) -> Step? {
        while position < events.count {
            let index = position
            if paired.contains(index) {
                position += 1
                continue
            }
            let event = events[index]
            if event.wd == -1 || event.mask.contains(.queueOverflow) {
                position += 1
                return .overflow
            }
            guard event.mask.contains(.movedFrom) else {
                position += 1
                return .event(index)
            }
            if let partner = arrivals[event.cookie]?.first(where: { $0 > index && !paired.contains($0) }) {
                paired.insert(partner)
                position += 1
                return .rename(from: index, to: partner)
            }
            if index == events.count - 1 && awaited != index {
                awaited = index
                return .awaitPartner
            }
            position += 1
            return .movedOut(index)
        }
        return nil
    }
}
