public import Foundation
public import UbiquityProtocol

/// One version of an item, shaped like `NSFileVersion`: the current version, or a conflict
/// version a sync engine or a stale coordinated save left beside it (docs/versions.md).
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
    public let etag: ItemETag

    /// Conflict versions are unresolved until chosen or removed; resolving removes them, so any
    /// version still listed as a conflict is unresolved.
    public var isResolved: Bool { !isConflict }
    public var url: URL { URL(fileURLWithPath: path) }

    init(item: String, _ version: ItemVersion) {
        itemPath = item
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

    /// Every version of the item: the current one first, then the others, oldest first.
    public static func versionsOfItem(at path: String, connection: UbiquityConnection) async throws -> [FileVersion] {
        let versions = try ItemVersions(json: try await connection.send(.versionsList(path: path)))
        return ([versions.current] + versions.others).map { FileVersion(item: versions.item, $0) }
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

    /// Keeps the current version and removes every other version: the conflict ends on every
    /// device once the sync engine has carried the removals.
    @discardableResult
    public static func removeOtherVersionsOfItem(at path: String, connection: UbiquityConnection) async throws -> ItemETag {
        try ItemETag(rawValue: FieldReader(try await connection.send(
            .versionResolve(path: path, keep: ItemVersion.currentID, etag: nil, removeOthers: true)), context: "version.resolve result").string("etag"))
    }

    /// Puts this version in place of the item (atomically); with `removingOthers`, the other
    /// conflict versions go too. Fails with `version.stale` when this version changed since it
    /// was listed. Returns the item's new etag.
    @discardableResult
    public func replaceItem(connection: UbiquityConnection, removingOthers: Bool = false) async throws -> ItemETag {
        try ItemETag(rawValue: FieldReader(try await connection.send(
            .versionResolve(path: itemPath, keep: id, etag: etag.rawValue, removeOthers: removingOthers)), context: "version.resolve result").string("etag"))
    }

    /// The version's bytes, read through the daemon in windows (up to `limit` bytes).
    public func contents(connection: UbiquityConnection, limit: Int = 64 << 20) async throws -> Data {
        var data = Data()
        while true {
            let reader = try FieldReader(try await connection.send(.versionRead(path: itemPath, version: id, offset: data.count, length: nil)),
                                         context: "version.read result")
            guard let chunk = Data(base64Encoded: try reader.string("data")) else {
                throw UbiquityKitError.invalidServerMessage("version.read answered data that is not base64")
            }
            data.append(chunk)
            if try reader.bool("eof") || chunk.isEmpty { return data }
            guard data.count <= limit else {
                throw UbiquityKitError.versionTooLarge(id: id, limit: limit)
            }
        }
    }
}
