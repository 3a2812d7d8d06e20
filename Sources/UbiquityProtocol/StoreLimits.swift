/// The bounds of the relational-store operations (docs/protocol.md, "Limits"; docs/threat_model.md).
/// Fixed in this version; a peer that passes one gets an error naming it, and nothing is held for it.
public struct StoreLimits: Sendable, Hashable {
    /// Stores one connection may hold open (`store.open`); more: `server.busy`.
    public var maxOpenStoresPerConnection = 16
    /// Stores the daemon creates in one container; a `store.open` of another: `server.busy`.
    public var maxStoresPerContainer = 64
    /// Live fetches (`store.watch`) one connection may hold; more: `server.busy`. Each keeps the
    /// rows its subscriber holds, at most `maxAnswerBytes`.
    public var maxLiveFetchesPerConnection = 16
    /// Changes in one `store.save`; more: `request.malformed` naming `changes` (the request line's
    /// 1 MiB bounds them too).
    public var maxChangesPerSave = 10_000
    /// Conditions in one `where`.
    public var maxConditions = 64
    /// Sort keys of one fetch.
    public var maxSortKeys = 8
    /// Bytes of one `store.fetch` answer's rows; more: `store.answerTooLarge` (ask with `limit`).
    public var maxAnswerBytes = 16 << 20
    /// Rows one unread `store.changed` names before it becomes `"all": true`.
    public var pendingRowsPerStore = 10_000

    public init() {}
}
