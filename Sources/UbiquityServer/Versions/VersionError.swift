public import UbiquityErrors
public import UbiquityPredicate
public import UbiquityProtocol

/// Why a versions or document operation was refused. ``Code`` is stable (its raw value is the wire string).
public struct VersionError: CodedClientError, Hashable {
    public enum Code: String, StableErrorCode {
        /// `path` is not an absolute path inside a served container, has `.`/`..`/empty components,
        /// is too long, or names a container itself or a sync engine's or conflict copy's file.
        case invalidPath = "item.invalidPath"
        /// Nothing is at `path` (or a directory on the way is missing or a symbolic link).
        case notFound = "item.notFound"
        /// No version with that id beside the item (already chosen, removed, or never there).
        case unknownVersion = "version.unknown"
        /// The version changed since the client listed it: its `etag` is not the one given.
        case stale = "version.stale"
        /// `version.read` of a directory (a package version): read its files by `path`.
        case notAFile = "version.notAFile"
        /// The peer lacks the right the operation needs on the item, as the kernel would judge it
        /// (mode bits, owner, group, POSIX ACL, search on every directory on the way): write for
        /// `document.lock`, read for `document.watch` and `versions.list`; also a symbolic link as the item.
        case forbidden = "item.forbidden"
        /// The file system refused a step (permissions, a full disk); nothing was half done.
        case fileSystem = "version.fileSystem"
        /// Another connection holds the item's coordinated-write lock.
        case locked = "document.locked"
        /// No such lock or watch on this connection.
        case unknownHandle = "document.unknown"
    }

    public let code: Code
    public let message: String
    public var details: [String: JSONValue]

    public init(_ code: Code, _ message: String, details: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `version.unknown`, listing the ids the item has now.
    static func unknown(_ id: String, in versions: ItemVersions) -> VersionError {
        VersionError(.unknownVersion, "'\(versions.item)' has no version '\(id)'",
                     details: ["version": .string(id), "versions": .array(([versions.current] + versions.others).map { .string($0.id) })])
    }
}
