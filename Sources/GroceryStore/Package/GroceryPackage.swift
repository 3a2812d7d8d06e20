public import FoundationEssentials
public import UbiquityKit

/// Grocery's package mode: the whole list and its images in one package, `Documents/grocery.gro`,
/// which the daemon reports as ONE item (the container declares `gro` as a package type).
///
/// The format and the write protocol are in docs/grocery-package.md. In short: `items.json` is
/// the commit point. Every change is one coordinated save through UbiquityKit's ``Document``
/// (``Document/updatePackage(commitFile:limit:listing:lockTimeout:_:)``), as any client should
/// write: under the package's lock from the daemon the list is read again and the change applied
/// to it, new image files go in under fresh names, `items.json` is replaced atomically, then the
/// images nothing refers to are deleted; a new package is built under a hidden name and renamed
/// into place. A reader therefore always sees either the previous list or the new one, two
/// writers never lose each other's change, and one that does not take the lock (a sync engine)
/// is detected by the etag of `items.json` and the change applied again. Readers take no lock.
///
/// ```swift
/// let package = GroceryPackage(documentsDirectory: container + "/Documents")
/// let milk = try await package.update(connection: connection) { try $0.add(name: "Milk") }
/// try await package.update(connection: connection) { try $0.setImage(pngData, for: milk.id) }
/// let (data, format) = try package.image(for: milk.id)!
/// ```
public struct GroceryPackage: Sendable {
    public static let fileName = "grocery.gro"
    /// The version of `items.json` this code writes, and the newest it reads.
    public static let formatVersion = 1
    static let itemsFileName = "items.json"
    static let imagesDirectoryName = "images"

    /// `<documents>/grocery.gro`.
    public let path: String
    public let documentsDirectory: String

    var itemsPath: String { path + "/" + Self.itemsFileName }
    var imagesDirectory: String { path + "/" + Self.imagesDirectoryName }

    public init(documentsDirectory: String) {
        self.documentsDirectory = documentsDirectory
        path = documentsDirectory + "/" + Self.fileName
    }

    /// Whether anything is at ``path`` (``load()`` says if it is not a readable package).
    public var exists: Bool { PackageFileSystem.kind(path) != .missing }

    /// The list as last committed.
    ///
    /// - Returns: Empty contents when the package does not exist yet.
    /// - Throws: ``GroceryError/corruptPackage(path:reason:)`` when it is not a directory, has no
    ///   `items.json`, or `items.json` is not valid JSON of a known version.
    public func load() throws -> GroceryPackageContents {
        switch PackageFileSystem.kind(path) {
        case .missing: return GroceryPackageContents()
        case .other: throw GroceryError.corruptPackage(path: path, reason: "it is not a directory")
        case .directory: break
        }
        return try Self.contents(ofItemsFile: itemsPath, package: path)
    }

    /// The list in an `items.json` file (the package's own, or a conflict version's), read bounded
    /// and without following a link.
    static func contents(ofItemsFile itemsPath: String, package: String? = nil) throws -> GroceryPackageContents {
        let limit = GroceryLimits.maxPackageIndexBytes
        let read: Data?
        do {
            read = try PackageFileSystem.readRegularFile(itemsPath, atMost: limit, followLinks: false, tooLarge: {
                .corruptPackage(path: itemsPath, reason: "it has \($0) bytes, more than the limit of \(limit)")
            })
        } catch let error as GroceryError {
            if case .corruptPackage = error { throw error }
            throw GroceryError.corruptPackage(path: itemsPath, reason: "cannot read it (\(error.description))")
        }
        guard let data = read else {
            throw GroceryError.corruptPackage(path: package ?? itemsPath, reason: "\(Self.itemsFileName) is missing")
        }
        return try PackageDocument.decode(data, file: itemsPath)
    }

    /// Applies `change` to the list in one coordinated save, through a ``Document`` of the package
    /// opened on `connection` for this update and closed after it (see ``update(_:lockTimeout:_:)``).
    @discardableResult
    public func update<T>(connection: UbiquityConnection, lockTimeout: Duration = .seconds(30),
                          _ change: (inout GroceryPackageContents) throws -> T) async throws -> T {
        let document = try await Document.open(path, connection: connection)
        do {
            let result = try await update(document, lockTimeout: lockTimeout, change)
            await document.close()
            return result
        } catch {
            await document.close()
            throw error
        }
    }

    /// Applies `change` to the list in one coordinated save of `document` (the package's): under
    /// its lock the list is read again and `change` applied to it, so it runs on the newest list
    /// (and again when a program that ignores the lock saved meanwhile). Nothing is written, and
    /// the daemon sees nothing, when `change` leaves the list as it was or throws.
    /// - Throws: What `change` throws; ``GroceryError/corruptPackage(path:reason:)`` when
    ///   `items.json` is missing or unreadable; `UbiquityKitError.documentBusy` when another
    ///   writer held the lock past `lockTimeout`, `UbiquityKitError.documentFile` when a step of
    ///   the save fails (the package then still holds the previous list).
    @discardableResult
    public func update<T>(_ document: Document, lockTimeout: Duration = .seconds(30),
                          _ change: (inout GroceryPackageContents) throws -> T) async throws -> T {
        try await document.updatePackage(commitFile: Self.itemsFileName, limit: GroceryLimits.maxPackageIndexBytes,
                                          listing: [Self.imagesDirectoryName], lockTimeout: lockTimeout) { update in
            try apply(change, to: &update)
        }
    }

    /// What one save writes: the list `update` read, changed by `change`, as the new `items.json`,
    /// the images set meanwhile as new files, and the image files nothing refers to any more
    /// (an image replaced or removed, or left by a writer that crashed before its commit) as
    /// removals. Only names of the images this code writes are removed: a sync engine's
    /// temporary or conflict copy inside `images/` is left alone.
    func apply<T>(_ change: (inout GroceryPackageContents) throws -> T, to update: inout Document.PackageUpdate) throws -> T {
        let before: GroceryPackageContents
        switch (update.exists, update.current) {
        case (false, _): before = GroceryPackageContents()
        case (true, nil): throw GroceryError.corruptPackage(path: path, reason: "\(Self.itemsFileName) is missing")
        case (true, let data?): before = try PackageDocument.decode(data, file: itemsPath)
        }
        var contents = before
        let result = try change(&contents)
        guard contents != before else { return result }
        update.commit = try PackageDocument.encode(contents)
        for (file, data) in contents.pendingImages { update.newFiles[Self.imagesDirectoryName + "/" + file] = data }
        let referenced = contents.referencedImageFiles
        update.removedFiles = (update.listing[Self.imagesDirectoryName] ?? [])
            .filter { GroceryPackageContents.isImageFileName($0) && !referenced.contains($0) }
            .map { Self.imagesDirectoryName + "/" + $0 }
        return result
    }

    /// The image of an item, or nil when it has none.
    ///
    /// Takes no lock: when a writer replaces the image between reading `items.json` and reading
    /// the image file, it reads `items.json` again.
    /// - Throws: ``GroceryError/unknownItem(prefix:)``; ``GroceryError/corruptPackage(path:reason:)``
    ///   when the image file is missing or is not the format `items.json` records.
    public func image(for id: GroceryItemID) throws -> (data: Data, format: ImageFormat)? {
        var missing = ""
        for _ in 0..<3 {
            guard let item = try load().item(id) else { throw GroceryError.unknownItem(prefix: id.uuidString) }
            guard let format = item.image, let file = item.imageFile else { return nil }
            let filePath = imagesDirectory + "/" + file
            guard PackageFileSystem.kind(imagesDirectory) != .other else {
                throw GroceryError.corruptPackage(path: imagesDirectory, reason: "it is not a directory (a symbolic link or a file is there)")
            }
            let limit = GroceryLimits.maxImageBytes
            if let data = try PackageFileSystem.readRegularFile(filePath, atMost: limit, followLinks: false, tooLarge: {
                .corruptPackage(path: filePath, reason: "it has \($0) bytes, more than the image limit of \(limit)")
            }) {
                guard ImageFormat.detect(data) == format else {
                    throw GroceryError.corruptPackage(path: filePath, reason: "it is not the \(format.rawValue.uppercased()) image \(Self.itemsFileName) says it is")
                }
                return (data, format)
            }
            missing = filePath
        }
        throw GroceryError.corruptPackage(path: missing, reason: "the image of item \(id) is missing")
    }
}
