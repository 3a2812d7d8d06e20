import CUbiquitySystem
import Glibc
import UbiquityPredicate
import UbiquityProtocol

/// `version.resolve`: ends a conflict by keeping one version as the item and, unless asked not
/// to, removing the other conflict versions.
///
/// Atomic for readers: a chosen file is renamed over the item (`renameat`), a chosen package
/// trades places with the current one (`renameat2(RENAME_EXCHANGE)`) and the old one is removed
/// afterwards, so the item's path never shows a partial or missing version. Removing the copies
/// is what ends the conflict on the other devices too: the sync engine carries the removals.
enum VersionResolver {
    static func resolve(_ location: ItemLocation, keep: String, etag: String?, removeOthers: Bool) throws -> JSONValue {
        let versions = try VersionCatalog.versions(of: location)
        let kept: ItemVersion
        if keep == ItemVersion.currentID {
            kept = versions.current
        } else {
            guard let chosen = versions.others.first(where: { $0.id == keep }) else { throw VersionError.unknown(keep, in: versions) }
            kept = chosen
        }
        if let etag, etag != kept.etag.rawValue {
            throw VersionError(.stale, "version '\(keep)' of '\(location.path)' changed since it was listed (etag \(kept.etag), not \(etag)); list the versions again",
                               details: ["version": .string(keep), "etag": .string(kept.etag.rawValue)])
        }
        if kept.conflict { try replace(with: kept, in: location) }
        var removed: [JSONValue] = []
        if removeOthers {
            for other in versions.others where other.id != kept.id {
                let place = try VersionPlace.open(other.id, replaces: other.replaces, in: location)
                if let failure = DirectoryEntries.remove(place.name, in: place.directory) {
                    throw VersionError(.fileSystem, "cannot remove version '\(other.id)': \(failure)", details: ["version": .string(other.id)])
                }
                removed.append(.string(other.id))
            }
        }
        let after = try VersionCatalog.versions(of: location)
        return .object(["item": .string(location.path), "kept": .string(kept.id), "removed": .array(removed),
                        "etag": .string(after.current.etag.rawValue),
                        "hasUnresolvedConflicts": .bool(!after.unresolvedConflicts.isEmpty)])
    }

    /// Puts a conflict version in place of what it replaces.
    private static func replace(with version: ItemVersion, in location: ItemLocation) throws {
        let place = try VersionPlace.open(version.id, replaces: version.replaces, in: location)
        let target = try FileStatus.of(place.replaces, in: place.directory).get()
        if let target, target.isDirectory || version.isDirectory {
            guard ubq_renameat_exchange(place.directory, place.name, place.replaces) == 0 else {
                throw VersionError(.fileSystem, "cannot put version '\(version.id)' in place: \(String(cString: strerror(errno)))")
            }
            // The replaced version now has the copy's name; nothing half-done is visible at the item's path.
            if let failure = DirectoryEntries.remove(place.name, in: place.directory) {
                throw VersionError(.fileSystem, "version '\(version.id)' is in place, but the replaced one could not be removed: \(failure)")
            }
        } else {
            guard renameat(place.directory, place.name, place.directory, place.replaces) == 0 else {
                throw VersionError(.fileSystem, "cannot put version '\(version.id)' in place: \(String(cString: strerror(errno)))")
            }
        }
    }
}
