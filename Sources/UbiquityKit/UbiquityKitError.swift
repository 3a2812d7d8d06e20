/// What can go wrong between a client and `ubiquityd`, apart from the daemon's own answers.
///
/// The daemon's refusals (a bad predicate, an unknown container) are thrown as
/// ``ProtocolError`` with their stable wire code; this type covers reaching the daemon, losing
/// it, and misusing the client API. Every case renders a sentence that says what to do.
public enum UbiquityKitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing listens at the socket path (`ENOENT` or `ECONNREFUSED`).
    case daemonNotRunning(socketPath: String)
    /// The socket exists but this user may not connect to it (`EACCES`, `EPERM`).
    case permissionDenied(socketPath: String)
    /// Connecting failed for another reason (path too long, not a socket, ...).
    case connectFailed(socketPath: String, reason: String)
    /// The connection closed or broke; every pending request and query stream ends with this.
    case disconnected(reason: String)
    /// The daemon announced `server.shuttingDown`; the connection closes after it.
    case daemonShuttingDown(reason: String)
    /// The daemon sent a line this client cannot read; the connection is closed after it.
    case invalidServerMessage(String)
    /// The process listening on the socket runs as a user this client does not trust (not root,
    /// not the client's own uid, not the `ubiquity` service user): nothing was sent to it.
    case untrustedServer(socketPath: String, uid: UInt32)
    /// The daemon sent a line longer than the client's limit; the connection is closed.
    case responseTooLarge(limit: Int)
    /// Something accepted the connection but did not answer `hello` in time (a socket-activated
    /// daemon that fails to start, or a stuck one).
    case noAnswer(socketPath: String, seconds: Int)
    /// `start()` was called on a query that was already started.
    case queryAlreadyStarted
    /// An operation that needs a started query was called before `start()`.
    case queryNotStarted
    /// `gather(_:)` was called on a live query: its results are never done arriving.
    case liveQueryCannotGather
    /// A version is bigger than the caller allowed reading into memory.
    case versionTooLarge(id: String, limit: Int)
    /// A version changed, or went away, since it was listed (its etag is not the listed one):
    /// nothing was read or changed. List the versions again and choose again.
    case versionStale(item: String, id: String)
    /// A version to read is not a regular file (a package's directory, a link, a device), or one to
    /// put in place is neither a file nor a directory.
    case versionNotAFile(path: String, id: String)
    /// The file system refused a step on a version, with this process's rights (errno's text:
    /// permission denied, a symbolic link on the way, a full disk), or the listing named a path
    /// outside the container's root.
    case versionFile(path: String, reason: String)
    /// The chosen version is in place, but these other versions changed since they were listed
    /// and were left, not removed: the item is still in conflict.
    case versionsLeft(item: String, versions: [String])
    /// Reading or writing a document's file failed (errno's text).
    case documentFile(path: String, reason: String)
    /// Another process held the document's coordinated-write lock for longer than the save waits.
    case documentBusy(path: String, seconds: Int)
    /// The document was closed.
    case documentClosed(path: String)

    public var description: String {
        switch self {
        case .daemonNotRunning(let path):
            "ubiquityd is not running (no socket at \(path)); start it with `make run` or `systemctl --user start ubiquityd`"
        case .permissionDenied(let path):
            "permission denied connecting to \(path): the socket belongs to another user; connect as that user or use --socket"
        case .connectFailed(let path, let reason):
            "cannot connect to ubiquityd at \(path): \(reason)"
        case .disconnected(let reason):
            "the connection to ubiquityd was lost: \(reason)"
        case .daemonShuttingDown(let reason):
            "ubiquityd is shutting down" + (reason.isEmpty ? "" : ": \(reason)")
        case .invalidServerMessage(let detail):
            "ubiquityd sent a line this client cannot read (\(detail)); the connection was closed"
        case .untrustedServer(let path, let uid):
            "refusing to talk to the process at \(path): it runs as uid \(uid), which is neither root, you, nor the ubiquity service user; another user may have put a socket there. Check the path (--socket) and XDG_RUNTIME_DIR"
        case .responseTooLarge(let limit):
            "ubiquityd sent a line longer than this client's limit of \(limit) bytes (a very large result set?); the connection was closed. Narrow the query, or raise maxLineBytes"
        case .noAnswer(let path, let seconds):
            "ubiquityd at \(path) accepted the connection but did not answer within \(seconds) s; it may be failing to start or stuck: see `systemctl status ubiquityd` (or `--user`) and its journal"
        case .queryAlreadyStarted:
            "the query is already started: create a new MetadataQuery to run another"
        case .queryNotStarted:
            "the query is not started: call start() first"
        case .liveQueryCannotGather:
            "gather(_:) runs a query once: set isLive to false first, or use start() for a live query"
        case .versionTooLarge(let id, let limit):
            "version '\(id)' is larger than \(limit) bytes; pass a larger limit, or read it from its path in parts"
        case .versionStale(let item, let id):
            "version '\(id)' of \(item) changed or went away since it was listed; nothing was changed: list the versions again and choose again"
        case .versionNotAFile(let path, let id):
            "version '\(id)' at \(path) is not a regular file (a package is a directory: read the files under its path)"
        case .versionFile(let path, let reason):
            "\(path): \(reason)"
        case .versionsLeft(let item, let versions):
            "the chosen version of \(item) is in place, but \(versions.count == 1 ? "this version" : "these versions") changed since \(versions.count == 1 ? "it was" : "they were") listed and \(versions.count == 1 ? "was" : "were") left: \(versions.joined(separator: ", ")); list the versions again to resolve the rest"
        case .documentFile(let path, let reason):
            "\(path): \(reason)"
        case .documentBusy(let path, let seconds):
            "\(path) is being saved by another process and was not released within \(seconds) s; try again"
        case .documentClosed(let path):
            "the document \(path) is closed: open it again"
        }
    }

    /// True when the daemon is not there to answer (not running, gone, or stopping):
    /// `ubiq` exits 3 for these.
    public var isUnreachable: Bool {
        switch self {
        case .daemonNotRunning, .permissionDenied, .connectFailed, .disconnected, .daemonShuttingDown,
             .invalidServerMessage, .untrustedServer, .responseTooLarge, .noAnswer:
            true
        case .queryAlreadyStarted, .queryNotStarted, .liveQueryCannotGather, .versionTooLarge, .versionStale, .versionNotAFile,
             .versionFile, .versionsLeft, .documentFile, .documentBusy, .documentClosed:
            false
        }
    }
}
