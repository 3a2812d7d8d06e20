public import FoundationEssentials

/// The list held by a ``GroceryPackage``: its items in insertion order, plus the image data set
/// since it was loaded (written by ``GroceryPackage/update(_:lockTimeout:_:)``).
///
/// Every mutation validates its input first and changes nothing when it throws.
public struct GroceryPackageContents: Sendable, Equatable {
    /// In insertion order.
    public private(set) var items: [PackagedItem]
    /// Image data not yet on disk, keyed by the file name inside `images/` that the item refers to.
    private(set) var pendingImages: [String: Data] = [:]

    public init() { items = [] }

    init(items: [PackagedItem]) { self.items = items }

    public func item(_ id: GroceryItemID) -> PackagedItem? { items.first { $0.id == id } }

    /// Appends a new item.
    /// - Throws: ``GroceryError/nameTooLong(bytes:limit:)``.
    @discardableResult
    public mutating func add(name: String, created: Date = Date()) throws -> PackagedItem {
        _ = try GroceryName.validated(name)
        let item = PackagedItem(id: GroceryItemID(), name: name, created: created)
        items.append(item)
        return item
    }

    /// - Throws: ``GroceryError/unknownItem(prefix:)``, ``GroceryError/nameTooLong(bytes:limit:)``.
    public mutating func rename(_ id: GroceryItemID, to name: String) throws {
        let index = try indexOf(id)
        _ = try GroceryName.validated(name)
        items[index].name = name
        items[index].modified = PackageTimestamp.rounded(Date())
    }

    /// Removes the item and its image. - Throws: ``GroceryError/unknownItem(prefix:)``.
    public mutating func remove(_ id: GroceryItemID) throws {
        let index = try indexOf(id)
        if let file = items[index].imageFile { pendingImages[file] = nil }
        items.remove(at: index)
    }

    /// Gives the item an image, replacing any it had.
    ///
    /// The size is checked before the signature, so a huge file is refused for its size.
    /// - Parameter source: Names the data in errors (the CLI passes the file's path).
    /// - Throws: ``GroceryError/unknownItem(prefix:)``, ``GroceryError/imageTooLarge(bytes:limit:)``
    ///   above ``GroceryLimits/maxImageBytes``, ``GroceryError/unsupportedImage(path:)`` when it is
    ///   neither PNG nor JPEG.
    public mutating func setImage(_ data: Data, for id: GroceryItemID, source: String = "the image") throws {
        let index = try indexOf(id)
        guard data.count <= GroceryLimits.maxImageBytes else {
            throw GroceryError.imageTooLarge(bytes: data.count, limit: GroceryLimits.maxImageBytes)
        }
        guard let format = ImageFormat.detect(data) else { throw GroceryError.unsupportedImage(path: source) }
        if let old = items[index].imageFile { pendingImages[old] = nil }
        // A fresh name for every image: the committed items.json keeps pointing at the old file
        // until the new one is completely on disk (docs/grocery-package.md, "Writing").
        let file = "\(id.uuidString)-\(Self.randomToken()).\(format.fileExtension)"
        pendingImages[file] = data
        items[index].image = format
        items[index].imageFile = file
        items[index].modified = PackageTimestamp.rounded(Date())
    }

    /// Removes the item's image; does nothing when it has none. - Throws: ``GroceryError/unknownItem(prefix:)``.
    public mutating func removeImage(for id: GroceryItemID) throws {
        let index = try indexOf(id)
        guard let file = items[index].imageFile else { return }
        pendingImages[file] = nil
        items[index].image = nil
        items[index].imageFile = nil
        items[index].modified = PackageTimestamp.rounded(Date())
    }

    /// Every image file the items refer to.
    var referencedImageFiles: Set<String> { Set(items.compactMap(\.imageFile)) }

    private func indexOf(_ id: GroceryItemID) throws -> Int {
        guard let index = items.firstIndex(where: { $0.id == id }) else {
            throw GroceryError.unknownItem(prefix: id.uuidString)
        }
        return index
    }

    /// Whether `name` is one ``setImage(_:for:source:)`` gives an image file,
    /// `<ITEM-ID>-<16 lowercase hex digits>.<png|jpg>`: what a save may delete from `images/` when
    /// nothing refers to it (a sync engine's temporary or conflict copy there is never one).
    static func isImageFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let extensions = ImageFormat.allCases.map { Array(("." + $0.fileExtension).utf8) }
        guard bytes.count == 36 + 1 + 16 + 4, extensions.contains(where: { bytes.suffix(4).elementsEqual($0) }), bytes[36] == UInt8(ascii: "-"),
              GroceryItemID(fileName: GroceryItemID.fileNamePrefix + String(decoding: bytes[..<36], as: UTF8.self)) != nil
        else { return false }
        return bytes[37..<53].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    static func randomToken() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
