public import FoundationEssentials
import NIOPosix
public import UbiquityProtocol

/// One version of an item, shaped like `NSFileVersion`: the current version, or a conflict
/// version a sync engine or a stale coordinated save left beside it (docs/versions.md).
///
/// The daemon only lists versions. Reading and resolving are done here, in the calling process,
/// with its own rights: below the container's ``root``, through descriptors, never following a
/// symbolic link, and only while a version still has the etag it was listed with. The kernel
/// decides with the files' own permissions what this process may read, rename or remove.
///
/// ```swift
/// let conflicts = try await FileVersion.unresolvedConflictVersionsOfItem(at: path, connection: connection)
/// if let newest = conflicts.max(by: { $0.modificationDate < $1.modificationDate }) {
///     try await newest.replaceItem(connection: connection)           // the newest wins…
///     try await FileVersion.removeOtherVersionsOfItem(at: path, connection: connection)   // …and the conflict ends everywhere
/// }
/// ```
public struct FileVersion: Sendable, Hashable {
    /// The item this is a version of.
    public let itemPath: String
    /// `"current"`, or the copy's path relative to the item's directory.
    public let id: String
    /// Where this version's bytes are.
    public let path: String
    /// What this version replaces when chosen, relative to the item's directory.
    public let replaces: String
    public let modificationDate: Date
    public let size: Int64
    /// The device that saved it, as the sync engine names it; nil when unknown.
    public let localizedNameOfSavingComputer: String?
    /// A conflict version (`NSFileVersion.isConflict`); false for the current version.
    public let isConflict: Bool
    public let isDirectory: Bool
    /// What the version was when listed; reading and resolving check it is still that.
    public let etag: ItemETag
    /// The id of the container the item is in.
    public let container: String
    /// The container's root directory: ``path`` is below it, and every step of reading or
    /// resolving is taken from it, without following a symbolic link.
    public let root: String

    /// Conflict versions are unresolved until chosen or removed; resolving removes them, so any
    /// version still listed as a conflict is unresolved.
    public var isResolved: Bool { !isConflict }
    public var url: URL { URL(fileURLWithPath: path) }

    init(_ versions: ItemVersions, _ version: ItemVersion) {
        itemPath = versions.item
        container = versions.container
        root = versions.root
        id = version.id
        path = version.path
        replaces = version.replaces
        modificationDate = Date(timeIntervalSince1970: version.modified)
        size = version.size
        localizedNameOfSavingComputer = version.device
        isConflict = version.conflict
        isDirectory = version.isDirectory
        etag = version.etag
    }

    /// Every version of the item: the current one first, then the others, oldest first (at most
    /// ``ItemVersions/maxListed`` others: the oldest).
    public static func versionsOfItem(at path: String, connection: UbiquityConnection) async throws -> [FileVersion] {
        let versions = try await list(path, connection: connection)
        return ([versions.current] + versions.others).map { FileVersion(versions, $0) }
    }

    public static func currentVersionOfItem(at path: String, connection: UbiquityConnection) async throws -> FileVersion {
        try await versionsOfItem(at: path, connection: connection)[0]
    }

    public static func otherVersionsOfItem(at path: String, connection: UbiquityConnection) async throws -> [FileVersion] {
        Array(try await versionsOfItem(at: path, connection: connection).dropFirst())
    }

    public static func unresolvedConflictVersionsOfItem(at path: String, connection: UbiquityConnection) async throws -> [FileVersion] {
        try await otherVersionsOfItem(at: path, connection: connection).filter { !$0.isResolved }
    }

    /// Keeps the current version and removes every other version, with this process's rights: the
    /// conflict ends on every device once the sync engine has carried the removals. A version that
    /// changed between the daemon's listing and its removal is left (``UbiquityKitError/versionsLeft(item:versions:)``).
    /// Returns the item's etag.
    @discardableResult
    public static func removeOtherVersionsOfItem(at path: String, connection: UbiquityConnection) async throws -> ItemETag {
        let versions = try await list(path, connection: connection)
        return try await finish(versions, removingOthers: true, connection: connection)
    }

    /// Puts this version in place of the item, with this process's rights and atomically for
    /// readers of the item's path: a file is renamed over what it replaces, a package trades places
    /// with the current one (`renameat2(RENAME_EXCHANGE)`) and the old one is removed. With
    /// `removingOthers`, the other versions go too. Asks the daemon for the versions first: when
    /// this one changed since it was listed, nothing is touched
    /// (``UbiquityKitError/versionStale(item:id:)``: list again). Returns the item's new etag.
    @discardableResult
    public func replaceItem(connection: UbiquityConnection, removingOthers: Bool = false) async throws -> ItemETag {
        let versions = try await Self.list(itemPath, connection: connection)
        guard let now = ([versions.current] + versions.others).first(where: { $0.id == id }), now.etag == etag,
              versions.root == root else {
            throw UbiquityKitError.versionStale(item: itemPath, id: id)
        }
        if now.conflict {
            // Renames, a recursive removal and fsync wait for the disk: on NIO's thread pool,
            // never on the cooperative pool the caller's tasks share.
            let (item, listed) = (versions.item, etag)
            try await NIOThreadPool.singleton.runIfActive {
                let root = try VersionFiles.Root(versions.root)
                try VersionFiles.putInPlace(now, item: item, root: root, listed: listed)
            }
        }
        return try await Self.finish(versions, keeping: now.conflict ? now.id : nil, removingOthers: removingOthers, connection: connection)
    }

    /// The version's bytes (at most `limit`), read by this process from the file below the
    /// container's root, without following a link, and only if it still has the etag it was
    /// listed with (else ``UbiquityKitError/versionStale(item:id:)``: list again). A package's
    /// version is a directory: read the files under its ``path``.
    public func contents(limit: Int = 64 << 20) throws -> Data {
        try VersionFiles.read(path, id: id, item: itemPath, root: root, etag: etag, limit: limit).data
    }

    /// The first `limit` bytes of this version (a file), read as ``contents(limit:)`` reads, but a
    /// longer file is cut rather than refused: `truncated` says more followed.
    public func prefix(_ limit: Int) throws -> (data: Data, truncated: Bool) {
        try VersionFiles.read(path, id: id, item: itemPath, root: root, etag: etag, limit: limit, truncating: true)
    }

    /// The bytes of the file `relative` (such as `items.json`) inside this version, a directory (a
    /// package's version), at most `limit`: read by this process below the container's root, no
    /// link followed on the way, and only while the directory still has the etag it was listed with.
    public func contents(ofFile relative: String, limit: Int = 64 << 20) throws -> Data {
        try VersionFiles.read(relative, inside: path, id: id, item: itemPath, root: root, etag: etag, limit: limit)
    }

    // MARK: - Resolving

    /// How many times the others are listed and removed when the daemon lists only some of them.
    static let maxRounds = 100

    private static func list(_ path: String, connection: UbiquityConnection) async throws -> ItemVersions {
        try await connection.send(VersionsList(path: path))
    }

    /// Removes the other versions (all but `kept`, which was just put in place) when asked, listing
    /// again while the daemon says its list was cut short; fsyncs, and returns the item's etag.
    private static func finish(_ listed: ItemVersions, keeping kept: String? = nil, removingOthers: Bool,
                               connection: UbiquityConnection) async throws -> ItemETag {
        let root = try VersionFiles.Root(listed.root)
        var versions = listed
        var left: [String] = []
        if removingOthers {
            for round in 1...maxRounds {
                // Recursive removals and fsync: on NIO's thread pool, as in replaceItem.
                let removable = versions.others.filter { $0.id != kept && !left.contains($0.id) }
                left += try await NIOThreadPool.singleton.runIfActive {
                    try removable.filter { other throws in try !VersionFiles.remove(other, root: root) }.map(\.id)
                }
                guard versions.truncated, round < maxRounds else { break }
                versions = try await list(listed.item, connection: connection)
            }
        }
        guard let etag = try VersionFiles.etag(ofItem: listed.item, root: root) else {
            throw UbiquityKitError.versionStale(item: listed.item, id: ItemVersion.currentID)
        }
        if !left.isEmpty { throw UbiquityKitError.versionsLeft(item: listed.item, versions: left) }
        return etag
    }
}
