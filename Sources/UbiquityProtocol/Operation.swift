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
        public static let all = [hello, containersList, containerURL, queryStart, queryResults,
                                 queryDisableUpdates, queryEnableUpdates, queryStop, queryRelease, status]
    }
}
