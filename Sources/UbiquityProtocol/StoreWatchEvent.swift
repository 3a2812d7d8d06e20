public import UbiquityJSON

/// The events of a live fetch (`store.watch`): first `store.gatheringFinished` with the fetch's
/// rows, then `store.update` whenever they change — rows `added` to the result set, `changed` in
/// it (same id, another value) and `removed` from it (as they were), so that applying each update
/// to the rows held gives exactly what a fresh `store.fetch` returns.
public enum StoreWatchEvent: Sendable, Hashable {
    case gatheringFinished(watch: Int, rows: [JSONValue], clock: String)
    case update(watch: Int, added: [JSONValue], changed: [JSONValue], removed: [JSONValue], clock: String)

    public static let gatheringFinishedName = "store.gatheringFinished"
    public static let updateName = "store.update"

    public var json: JSONValue {
        switch self {
        case .gatheringFinished(let watch, let rows, let clock):
            .object(["event": .string(Self.gatheringFinishedName), "watch": .integer(Int64(watch)), "rows": .array(rows),
                     "count": .integer(Int64(rows.count)), "clock": .string(clock)])
        case .update(let watch, let added, let changed, let removed, let clock):
            .object(["event": .string(Self.updateName), "watch": .integer(Int64(watch)), "added": .array(added),
                     "changed": .array(changed), "removed": .array(removed), "clock": .string(clock)])
        }
    }
}
