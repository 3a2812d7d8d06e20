import UbiquityJSON
import UbiquityProtocol

/// One live fetch (`store.watch`) of a connection: what it fetches, from which store, and the
/// rows its subscriber holds (nil until the first answer). Each time the store changes, the
/// connection's outbox fetches again and sends the difference (``difference(from:to:)``): live
/// equals a fresh fetch by construction, and what is kept is one result set, bounded like any
/// answer (`maxAnswerBytes`), however many changes happen while the subscriber does not read.
struct LiveFetch: Sendable {
    let request: StoreFetch
    let store: ContainerStore
    /// Whether the peer may still read the store's container, asked before each look.
    let access: QueryAccess
    var rows: [JSONValue]?

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
