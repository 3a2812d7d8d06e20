/// The codes of the daemon's relational-store operations that are the daemon's own (the store's
/// own codes, `store.invalidSchema`, `store.schemaNotAdditive` and `store.invalidChange`, are
/// ``StoreErrorCode``'s). Stable: the raw value is what clients switch on.
public enum StoreRequestErrorCode: String, StableErrorCode {
    /// No store of that name is known in the container: it was never opened with a schema here.
    case unknownStore = "store.unknown"
    /// The store's name is not 1 to 64 of `A-Z a-z 0-9 _` starting with a letter or `_`.
    case invalidName = "store.invalidName"
    /// The peer may read the container but not write it, and the operation writes: a save,
    /// an open that creates or upgrades the store, or forgetting a device.
    case forbidden = "store.forbidden"
    /// The store's files or cache could not be opened or written (permissions, a full disk, the
    /// daemon has no device id).
    case storageFailed = "store.storageFailed"
    /// The answer would be larger than `maxAnswerBytes`: ask for fewer rows (`limit`, `where`).
    case answerTooLarge = "store.answerTooLarge"
    /// No live fetch of that number on this connection.
    case unknownWatch = "store.unknownWatch"
    /// `store.forget` names a device this store does not know: no log, snapshot or
    /// acknowledgement of it in the store's folder, and no watermark in the cache.
    case unknownDevice = "store.unknownDevice"
    /// `store.forget` names this daemon's own device: a device cannot stop waiting for itself.
    case ownDevice = "store.ownDevice"
}
