public import UbiquityPredicate

/// Every operation a client can ask for, with its parameters.
public enum Operation: Sendable, Hashable {
    /// Must come first. `version` is the protocol version the client speaks.
    case hello(version: Int, client: String?)
    case containersList
    /// nil: the first configured container the peer may read (`URLForUbiquityContainerIdentifier(nil)`).
    case containerURL(container: String?)
    case queryStart(QueryParameters)
    case queryResults(query: Int)
    case queryDisableUpdates(query: Int)
    case queryEnableUpdates(query: Int)
    /// No more events; results stay readable until `query.release` or the connection closes.
    case queryStop(query: Int)
    case queryRelease(query: Int)
    case status
    /// An item's current version and its conflict versions (`NSFileVersion`).
    case versionsList(path: String)
    /// Takes the coordinated-write lock of an item (docs/versions.md): until `document.unlock` or
    /// the connection closes, no other coordinated writer may save it.
    case documentLock(path: String)
    case documentUnlock(lock: Int)
    /// Subscribes to an item's lock changes (`document.lockChanged` events).
    case documentWatch(path: String)
    case documentUnwatch(watch: Int)
    /// The key-value store of a container (docs/kv-store.md); `container` nil: the default one.
    case kvGet(container: String?, key: String)
    /// `value` in its wire form (``KVValue`` in UbiquityKeyValue reads it).
    case kvSet(container: String?, key: String, value: JSONValue)
    case kvRemove(container: String?, key: String)
    case kvAll(container: String?)
    /// Reads every device's file again now.
    case kvSynchronize(container: String?)
    /// `kv.changed` events for the store's changes made elsewhere.
    case kvSubscribe(container: String?)
    case kvUnsubscribe(store: Int)

    /// The `op` string on the wire.
    public var name: String {
        switch self {
        case .hello: Operation.names.hello
        case .containersList: Operation.names.containersList
        case .containerURL: Operation.names.containerURL
        case .queryStart: Operation.names.queryStart
        case .queryResults: Operation.names.queryResults
        case .queryDisableUpdates: Operation.names.queryDisableUpdates
        case .queryEnableUpdates: Operation.names.queryEnableUpdates
        case .queryStop: Operation.names.queryStop
        case .queryRelease: Operation.names.queryRelease
        case .status: Operation.names.status
        case .versionsList: Operation.names.versionsList
        case .documentLock: Operation.names.documentLock
        case .documentUnlock: Operation.names.documentUnlock
        case .documentWatch: Operation.names.documentWatch
        case .documentUnwatch: Operation.names.documentUnwatch
        case .kvGet: Operation.names.kvGet
        case .kvSet: Operation.names.kvSet
        case .kvRemove: Operation.names.kvRemove
        case .kvAll: Operation.names.kvAll
        case .kvSynchronize: Operation.names.kvSynchronize
        case .kvSubscribe: Operation.names.kvSubscribe
        case .kvUnsubscribe: Operation.names.kvUnsubscribe
        }
    }

    /// The one list of operation names (docs, errors and "did you mean" read it).
    public enum names {
        public static let hello = "hello"
        public static let containersList = "containers.list"
        public static let containerURL = "container.url"
        public static let queryStart = "query.start"
        public static let queryResults = "query.results"
        public static let queryDisableUpdates = "query.disableUpdates"
        public static let queryEnableUpdates = "query.enableUpdates"
        public static let queryStop = "query.stop"
        public static let queryRelease = "query.release"
        public static let status = "status"
        public static let versionsList = "versions.list"
        public static let documentLock = "document.lock"
        public static let documentUnlock = "document.unlock"
        public static let documentWatch = "document.watch"
        public static let documentUnwatch = "document.unwatch"
        public static let kvGet = "kv.get"
        public static let kvSet = "kv.set"
        public static let kvRemove = "kv.remove"
        public static let kvAll = "kv.all"
        public static let kvSynchronize = "kv.synchronize"
        public static let kvSubscribe = "kv.subscribe"
        public static let kvUnsubscribe = "kv.unsubscribe"
        public static let all = [hello, containersList, containerURL, queryStart, queryResults,
                                 queryDisableUpdates, queryEnableUpdates, queryStop, queryRelease, status,
                                 versionsList,
                                 documentLock, documentUnlock, documentWatch, documentUnwatch,
                                 kvGet, kvSet, kvRemove, kvAll, kvSynchronize, kvSubscribe, kvUnsubscribe]

        /// Operations this protocol no longer has, with what to do instead: the daemon serves
        /// every local user and never reads or moves file contents for them (docs/versions.md).
        public static let retired: [String: String] = [
            "version.read": "the daemon no longer returns file contents: read the version at its 'path' from versions.list yourself (UbiquityKit: FileVersion.contents())",
            "version.resolve": "the daemon no longer renames or removes files: resolve with your own rights as docs/versions.md describes (UbiquityKit: FileVersion.replaceItem, removeOtherVersionsOfItem)",
        ]
    }
}
