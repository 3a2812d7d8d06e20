/// The sync engine the daemon follows (`[sync]` in the configuration): Syncthing, reached at
/// `address` with `api_key`, either of which may come from Syncthing's own `config.xml` (read at
/// every connection attempt, so a key Syncthing changes is picked up).
public struct SyncEngineSettings: Sendable, Hashable {
    /// The one engine supported: `syncthing`.
    public static let engines = ["syncthing"]

    public var engine = "syncthing"
    /// nil: the GUI address in `configXML`.
    public var address: EngineAddress?
    /// nil: the API key in `configXML`.
    public var apiKey: String?
    /// Syncthing's `config.xml`, for whatever of the address and the key is not given.
    public var configXML: String?
    /// How long files on demand wait for one answer about a folder (`folder_request_timeout_s`; a
    /// read, at least ``SyncthingFolderRequests/readFloor``).
    public var folderRequestTimeoutSeconds: Int64 = SyncEngineSettings.defaultFolderRequestTimeoutSeconds
    /// Below `ubiq`'s own 30 s, so that a user is told why rather than given up on.
    public static let defaultFolderRequestTimeoutSeconds: Int64 = 20

    public init(engine: String = "syncthing", address: EngineAddress? = nil, apiKey: String? = nil, configXML: String? = nil) {
        self.engine = engine
        self.address = address
        self.apiKey = apiKey
        self.configXML = configXML
    }
}
