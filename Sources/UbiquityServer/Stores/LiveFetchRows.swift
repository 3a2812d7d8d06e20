import UbiquityJSON
import UbiquityProtocol
import UbiquityStore
import UbiquityStoreFiles

/// The rows a live fetch's subscriber holds, for a fetch whose rows depend on their own columns
/// alone (no relationship end read or carried, no limit): kept by the store in the fetch's order,
/// so that a change is applied to them — the rows it touched read again, each put where the
/// fetch's order puts it — instead of the whole table being read and filtered again. Pure.
///
/// The rows after ``apply(touched:current:maxBytes:)`` are what a fresh fetch would return: the
/// rows not touched are as they were (nothing else changed them), the touched ones are read now
/// with the same filter, and both are ordered by ``StoreRow/ordered(_:_:by:)``, as a fetch is.
struct LiveFetchRows: Sendable {
    private(set) var rows: [StoreRow]
    /// The bytes of the rows as one answer's lines, held against the answer limit.
    private(set) var bytes: Int
    let sort: [(column: String, ascending: Bool)]

    init(_ rows: [StoreRow], sort: [(column: String, ascending: Bool)]) {
        self.rows = rows
        self.sort = sort
        bytes = rows.reduce(0) { $0 + Self.bytes(of: $1) }
    }

    /// What a row costs in an answer: its JSON line.
    static func bytes(of row: StoreRow) -> Int { JSONLine.encode(StoreWire.row(id: row.id, values: row.values)).utf8.count + 1 }

    /// Applies a change that touched the rows `touched`, of which `current` (in the fetch's order)
    /// are those the fetch keeps now; returns the update: `added` and `changed` in the new order,
    /// `removed` in the old, as they were.
    ///
    /// - Throws: the answer limit's error (`answerTooLarge`) when the rows would pass `maxBytes`;
    ///   the rows are left as they were.
    mutating func apply(touched: Set<RowID>, current: [StoreRow], maxBytes: Int,
                        tooLarge: () -> any Error) throws -> (added: [StoreRow], changed: [StoreRow], removed: [StoreRow]) {
        var held: [RowID: StoreRow] = [:]
        var kept: [StoreRow] = []
        kept.reserveCapacity(rows.count)
        var bytes = self.bytes
        for row in rows {
            if touched.contains(row.id) {
                held[row.id] = row
                bytes -= Self.bytes(of: row)
            } else {
                kept.append(row)
            }
        }
        var added: [StoreRow] = [], changed: [StoreRow] = []
        var stillKept: Set<RowID> = []
        for row in current {
            bytes += Self.bytes(of: row)
            stillKept.insert(row.id)
            switch held[row.id] {
            case nil: added.append(row)
            case let before? where before != row: changed.append(row)
            default: break
            }
        }
        guard bytes <= maxBytes else { throw tooLarge() }
        let removed = rows.filter { held[$0.id] != nil && !stillKept.contains($0.id) }
        rows = Self.merged(kept, current, by: sort)
        self.bytes = bytes
        return (added, changed, removed)
    }

    /// Two lists in the fetch's order as one.
    private static func merged(_ a: [StoreRow], _ b: [StoreRow], by sort: [(column: String, ascending: Bool)]) -> [StoreRow] {
        guard !b.isEmpty else { return a }
        var out: [StoreRow] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if StoreRow.ordered(b[j], a[i], by: sort) { out.append(b[j]); j += 1 } else { out.append(a[i]); i += 1 }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }
}
