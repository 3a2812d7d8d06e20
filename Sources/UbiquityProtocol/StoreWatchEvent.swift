public import UbiquityJSON

/// The events of a live fetch (`store.watch`): first `store.gatheringFinished` with the fetch's
/// rows, then `store.update` whenever they change — rows `added` to the result set, `changed` in
/// it (same id, another value) and `removed` from it (as they were), so that applying each update
/// to the rows held gives exactly what a fresh `store.fetch` returns.
public enum StoreWatchEvent: Sendable, Hashable {
    case gatheringFinished(watch: Int, rows: [JSONValue], clock: String)
    case update(watch: Int, added: [JSONValue], changed: [JSONValue], removed: [JSONValue], clock: String)
    /// `store.watchStopped`: the fetch failed later (its rows grew past `maxAnswerBytes`, the
    /// peer may no longer read the container) and the live fetch ended; no event of it follows.
    case stopped(watch: Int, code: String, reason: String)

    public static let gatheringFinishedName = "store.gatheringFinished"
    public static let updateName = "store.update"
    public static let stoppedName = "store.watchStopped"
    /// Every event name of a live fetch.
    public static let names: Set<String> = [gatheringFinishedName, updateName, stoppedName]

    /// The live fetch the event belongs to.
    public var watch: Int {
        switch self {
        case .gatheringFinished(let watch, _, _), .update(let watch, _, _, _, _), .stopped(let watch, _, _): watch
        }
    }

    /// Reads one of the events as a client receives it.
    ///
    /// - Throws: `request.malformed` for another event, or a missing or mistyped field.
    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "store watch event")
        let name = try reader.string("event")
        let watch = try reader.int("watch")
        switch name {
        case Self.gatheringFinishedName:
            self = .gatheringFinished(watch: watch, rows: try reader.array("rows"), clock: try reader.string("clock"))
        case Self.updateName:
            self = .update(watch: watch, added: try reader.optionalArray("added") ?? [], changed: try reader.optionalArray("changed") ?? [],
                           removed: try reader.optionalArray("removed") ?? [], clock: try reader.string("clock"))
        case Self.stoppedName:
            self = .stopped(watch: watch, code: try reader.string("code"), reason: try reader.optionalString("reason") ?? "")
        default:
            throw .malformed("'\(name)' is not an event of a live fetch", field: "event")
        }
    }

    public var json: JSONValue {
        switch self {
        case .gatheringFinished(let watch, let rows, let clock):
            .object(["event": .string(Self.gatheringFinishedName), "watch": .integer(Int64(watch)), "rows": .array(rows),
                     "count": .integer(Int64(rows.count)), "clock": .string(clock)])
        case .update(let watch, let added, let changed, let removed, let clock):
            .object(["event": .string(Self.updateName), "watch": .integer(Int64(watch)), "added": .array(added),
                     "changed": .array(changed), "removed": .array(removed), "clock": .string(clock)])
        case .stopped(let watch, let code, let reason):
            .object(["event": .string(Self.stoppedName), "watch": .integer(Int64(watch)), "code": .string(code), "reason": .string(reason)])
        }
    }
}
