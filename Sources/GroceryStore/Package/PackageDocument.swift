package import FoundationEssentials

/// `items.json`: `{"version": 1, "items": [...]}` (docs/grocery-package.md). Package-visible for the
/// fuzz target of package contents (UbiquityFuzzing).
package struct PackageDocument: Codable {
    var version: Int
    var items: [PackagedItem]

    private struct VersionProbe: Decodable { var version: Int? }

    package static func encode(_ contents: GroceryPackageContents) throws -> Data {
        let encoder = JSONEncoder()
        // Sorted keys and unescaped slashes: stable, readable files (Linux Foundation shuffles keys otherwise).
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(PackageDocument(version: GroceryPackage.formatVersion, items: contents.items)) + Data("\n".utf8)
    }

    /// - Throws: ``GroceryError/corruptPackage(path:reason:)`` naming `file` and what is wrong.
    package static func decode(_ data: Data, file: String) throws -> GroceryPackageContents {
        func corrupt(_ reason: String) -> GroceryError { .corruptPackage(path: file, reason: reason) }
        // The version first, so a newer file is reported as newer rather than as malformed.
        let probe: VersionProbe
        do { probe = try JSONDecoder().decode(VersionProbe.self, from: data) } catch {
            throw corrupt("it is not valid JSON (\(describe(error)))")
        }
        guard let version = probe.version else { throw corrupt("it has no \"version\" field") }
        guard version == GroceryPackage.formatVersion else {
            throw corrupt(version > GroceryPackage.formatVersion
                ? "it has format version \(version), newer than this grocery reads (\(GroceryPackage.formatVersion)); update grocery"
                : "it has unknown format version \(version)")
        }
        let document: PackageDocument
        do { document = try JSONDecoder().decode(PackageDocument.self, from: data) } catch {
            throw corrupt(describe(error))
        }
        var seen = Set<GroceryItemID>()
        for item in document.items where !seen.insert(item.id).inserted {
            throw corrupt("item \(item.id) appears twice")
        }
        return GroceryPackageContents(items: document.items)
    }

    /// "items[2].created: '…' is not a date …" rather than Foundation's nested error dump.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let context: DecodingError.Context
        switch error {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c): context = c
        @unknown default: return "\(error)"
        }
        var where_ = ""
        for key in context.codingPath {
            if let index = key.intValue { where_ += "[\(index)]" } else { where_ += (where_.isEmpty ? "" : ".") + key.stringValue }
        }
        var message = context.debugDescription
        if case .keyNotFound(let key, _) = error { message = "the field \"\(key.stringValue)\" is missing" }
        if let underlying = context.underlyingError { message += " (\(underlying))" }
        return where_.isEmpty ? message : "\(where_): \(message)"
    }
}
