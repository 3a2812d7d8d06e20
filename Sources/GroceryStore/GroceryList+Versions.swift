import FoundationEssentials
import UbiquityKit

/// Conflicts: when two devices saved the same item (or, in package mode, the package) at once,
/// the sync engine keeps both; these list the versions and keep one, on every device.
extension GroceryList {
    /// The item's versions, the current one first (number 1), then the others oldest first. In
    /// package mode they are the package's versions, each with this item's name in it.
    public func versions(of id: GroceryItemID) async throws -> [GroceryItemVersion] {
        switch format {
        case .relational:
            throw GroceryError.noVersionsInStore
        case .files:
            let versions = try await FileVersion.versionsOfItem(at: files.path(of: id), connection: connection)
            return try versions.enumerated().map { index, version in
                GroceryItemVersion(number: index + 1, version: version, name: try GroceryItemFiles.name(of: version))
            }
        case .package:
            let versions = try await FileVersion.versionsOfItem(at: package.path, connection: connection)
            return try versions.enumerated().map { index, version in
                GroceryItemVersion(number: index + 1, version: version, name: try contents(of: version).item(id)?.name)
            }
        }
    }

    /// Keeps one version of the item and removes the others; the sync engine carries the result
    /// to the other devices, where the conflict ends too. In package mode the chosen version is
    /// the whole package's.
    /// - Throws: ``GroceryError/notInConflict(_:)``, ``GroceryError/noSuchVersion(number:count:)``,
    ///   ``GroceryError/noVersionNamed(_:names:)``, `UbiquityKitError.versionStale` when a version
    ///   changed while choosing, and `UbiquityKitError.versionFile` when this process may not
    ///   rename or remove a version (the versions are moved with its own rights).
    @discardableResult
    public func resolve(_ id: GroceryItemID, keeping choice: GroceryResolution) async throws -> GroceryItemVersion {
        let versions = try await versions(of: id)
        guard versions.count > 1 else { throw GroceryError.notInConflict(id) }
        let chosen: GroceryItemVersion
        switch choice {
        case .pick(let number):
            guard (1...versions.count).contains(number) else { throw GroceryError.noSuchVersion(number: number, count: versions.count) }
            chosen = versions[number - 1]
        case .name(let name):
            // Versions that agree on the name are the same choice for this item: prefer the current one.
            guard let match = versions.first(where: { $0.name == name }) else {
                throw GroceryError.noVersionNamed(name, names: versions.map { $0.name.map(GroceryName.display) ?? "(absent)" })
            }
            chosen = match
        case .newest:
            chosen = versions.max { ($0.modified, -$0.number) < ($1.modified, -$1.number) }!
        }
        if chosen.isCurrent {
            try await FileVersion.removeOtherVersionsOfItem(at: chosen.version.itemPath, connection: connection)
        } else {
            try await chosen.version.replaceItem(connection: connection, removingOthers: true)
        }
        return chosen
    }

    /// Package mode: marks the items whose name or image differs in another version of the package.
    func markingConflicts(_ items: [GroceryItem]) async throws -> [GroceryItem] {
        let versions = try await FileVersion.versionsOfItem(at: package.path, connection: connection)
        let others = try versions.dropFirst().map(contents(of:))
        return items.map { item in
            var item = item
            item.inConflict = others.contains { other in
                guard let there = other.item(item.id) else { return true }
                return there.name != item.name || there.image != item.image
            }
            return item
        }
    }

    /// The list as one version of the package holds it, read by this process below the container's
    /// root (no link followed, etag-checked: ``FileVersion``).
    private func contents(of version: FileVersion) throws -> GroceryPackageContents {
        if !version.isConflict { return try package.load() }
        let limit = GroceryLimits.maxPackageIndexBytes
        if version.isDirectory {
            let data = try version.contents(ofFile: GroceryPackage.itemsFileName, limit: limit)
            return try PackageDocument.decode(data, file: version.path + "/" + GroceryPackage.itemsFileName)
        }
        if version.replaces.hasSuffix("/" + GroceryPackage.itemsFileName) {
            return try PackageDocument.decode(try version.contents(limit: limit), file: version.path)
        }
        // A copy of an image: the list itself is the current one.
        return try package.load()
    }
}
