import UbiquityJSON
import UbiquityProtocol
import UbiquityStore

/// A live fetch (`store.watch`) as its store keeps it: the connection to tell, what it fetches,
/// the rows its subscriber holds, and which rows changed since.
struct LiveFetchState: Sendable {
    let outbox: ConnectionOutbox
    let request: StoreFetch
    /// Whether its rows depend on their own columns alone — no relationship end read or carried,
    /// no limit — so that a change is applied to the rows it touched (``LiveFetchRows``).
    let byRow: Bool
    /// The rows of the fetch's table changes touched since ``held`` was made; nil when the whole
    /// fetch is to be read again (another fetch, too many rows, a schema upgrade).
    var touched: Set<RowID>? = []
    /// The rows the subscriber holds; nil until the first answer.
    var held: Held?

    /// The subscriber's rows: kept row by row, or as the answer's lines for a fetch read whole.
    enum Held: Sendable {
        case rows(LiveFetchRows)
        case lines([JSONValue])
    }

    init(outbox: ConnectionOutbox, request: StoreFetch, byRow: Bool) {
        self.outbox = outbox
        self.request = request
        self.byRow = byRow
    }

    /// Notes what an import or a save changed: the rows of the fetch's table it touched, at most
    /// `maxRows` of them before the fetch is read whole again.
    mutating func note(_ result: ImportResult, maxRows: Int) {
        guard byRow, var rows = touched else { touched = nil; return }
        let table = request.table
        for ref in result.inserted where ref.table == table { rows.insert(ref.id) }
        for ref in result.updated.keys where ref.table == table { rows.insert(ref.id) }
        for ref in result.deleted where ref.table == table { rows.insert(ref.id) }
        touched = rows.count <= maxRows ? rows : nil
    }

    /// The update from `old` to `new` rows (each with its `id`): `added` and `changed` in the order
    /// of `new`, `removed` in the order of `old`, as they were. Pure.
    static func difference(from old: [JSONValue], to new: [JSONValue]) -> (added: [JSONValue], changed: [JSONValue], removed: [JSONValue]) {
        func id(_ row: JSONValue) -> String {
            if case .object(let fields) = row, case .string(let id)? = fields["id"] { return id }
            return ""
        }
        var before: [String: JSONValue] = [:]
        for row in old { before[id(row)] = row }
        var added: [JSONValue] = [], changed: [JSONValue] = []
        var kept: Set<String> = []
        for row in new {
            let key = id(row)
            kept.insert(key)
            switch before[key] {
            case nil: added.append(row)
            case let previous? where previous != row: changed.append(row)
            default: break
            }
        }
        let removed = old.filter { !kept.contains(id($0)) }
        return (added, changed, removed)
    }
}
