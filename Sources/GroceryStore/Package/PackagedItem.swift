public import FoundationEssentials

/// One entry of the package's list, as stored in `items.json` (docs/grocery-package.md).
///
/// Dates are kept to the millisecond, the precision `items.json` stores, so an item read back
/// from disk equals the one that was written.
public struct PackagedItem: Sendable, Equatable, Codable {
    public let id: GroceryItemID
    public var name: String
    public let created: Date
    public var modified: Date
    /// nil = no image.
    public var image: ImageFormat?
    /// The image's file name inside `images/` (`<ID>-<token>.<ext>`); set together with `image`.
    var imageFile: String?

    init(id: GroceryItemID, name: String, created: Date) {
        self.id = id
        self.name = name
        self.created = PackageTimestamp.rounded(created)
        self.modified = self.created
    }

    private enum CodingKeys: String, CodingKey { case id, name, created, modified, image }
    private struct StoredImage: Codable {
        var format: ImageFormat
        var file: String
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(GroceryItemID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        created = try PackageTimestamp.decode(container.decode(String.self, forKey: .created), at: decoder.codingPath + [CodingKeys.created])
        modified = try PackageTimestamp.decode(container.decode(String.self, forKey: .modified), at: decoder.codingPath + [CodingKeys.modified])
        if let stored = try container.decodeIfPresent(StoredImage.self, forKey: .image) {
            // The file name comes from disk: refuse anything that could point outside images/.
            guard !stored.file.isEmpty, !stored.file.hasPrefix("."), !stored.file.contains("/") else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [CodingKeys.image],
                                                        debugDescription: "'\(stored.file)' is not a plain file name inside images/"))
            }
            image = stored.format
            imageFile = stored.file
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(PackageTimestamp.encode(created), forKey: .created)
        try container.encode(PackageTimestamp.encode(modified), forKey: .modified)
        if let image, let imageFile {
            try container.encode(StoredImage(format: image, file: imageFile), forKey: .image)
        }
    }
}
