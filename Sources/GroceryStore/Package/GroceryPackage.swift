public import Foundation
import Glibc
import UbiquitySystem

/// Grocery's package mode: the whole list and its images in one package, `Documents/grocery.gro`,
/// which the daemon reports as ONE item (the container declares `gro` as a package type).
///
/// The format and the write protocol are in docs/grocery-package.md. In short: `items.json` is
/// the commit point. New image files go in under fresh names first, then `items.json` is
/// replaced by an atomic rename, then unreferenced files are deleted; the package directory
/// itself is built under a hidden name and renamed into place. A reader therefore always sees
/// either the previous list or the new one, and a writer that crashes leaves only orphans that
/// the next ``update(_:)`` removes. Writers exclude each other with `flock` on
/// `<lockDirectory>/.grocery.lock`; readers take no lock.
///
/// ```swift
/// let package = GroceryPackage(documentsDirectory: container + "/Documents", lockDirectory: container)
/// let milk = try package.update { try $0.add(name: "Milk") }
/// try package.update { try $0.setImage(pngData, for: milk.id) }
/// let (data, format) = try package.image(for: milk.id)!
/// ```
public struct GroceryPackage: Sendable {
    public static let fileName = "grocery.gro"
    /// The version of `items.json` this code writes, and the newest it reads.
    public static let formatVersion = 1
    static let itemsFileName = "items.json"
    static let imagesDirectoryName = "images"
    static let lockFileName = ".grocery.lock"
    /// Hidden, so the daemon never reports them (docs/live-queries.md, "Coalescing").
    static let itemsTempPrefix = ".items.json.tmp-"
    static let stagingPrefix = ".grocery.gro.tmp-"

    /// `<documents>/grocery.gro`.
    public let path: String
    public let documentsDirectory: String
    /// `<lockDirectory>/.grocery.lock`.
    public let lockPath: String

    var itemsPath: String { path + "/" + Self.itemsFileName }
    var imagesDirectory: String { path + "/" + Self.imagesDirectoryName }

    /// - Parameter lockDirectory: Where the writer lock file lives — the container root, OUTSIDE
    ///   Documents, so the lock is never an item.
    public init(documentsDirectory: String, lockDirectory: String) {
        self.documentsDirectory = documentsDirectory
        path = documentsDirectory + "/" + Self.fileName
        lockPath = lockDirectory + "/" + Self.lockFileName
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

    /// Takes the writer lock, re-loads, applies `change`, writes the whole package atomically
    /// and unlocks. Nothing is written (and the daemon sees nothing) when `change` leaves the
    /// contents as they were, or when it throws.
    ///
    /// `change` runs a second time only in one case: a program that ignores the lock created
    /// the package while this one was building it.
    /// - Throws: What `change` throws, ``GroceryError/corruptPackage(path:reason:)`` from
    ///   ``load()``, ``GroceryError/io(path:operation:message:)`` when writing fails (the package
    ///   then still holds the previous list).
    @discardableResult
    public func update<T>(_ change: (inout GroceryPackageContents) throws -> T) throws -> T {
        try PackageFileSystem.withExclusiveLock(lockPath) {
            for _ in 0..<2 {
                let existed = PackageFileSystem.kind(path) == .directory
                let before = try load()
                var contents = before
                let result = try change(&contents)
                if contents == before { return result }
                if existed {
                    try writeInPlace(contents)
                    return result
                }
                if try create(contents) { return result }
            }
            throw GroceryError.io(path: path, operation: "create", message: "another program keeps creating the package at the same time")
        }
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

    // MARK: - Writing (the caller holds the lock)

    /// Commits `contents` into the existing package: images, then items.json, then clean-up.
    ///
    /// Works through descriptors of the package and its `images/` opened without following links,
    /// so a link planted in their place is refused instead of written or deleted through.
    private func writeInPlace(_ contents: GroceryPackageContents) throws {
        let documents = try PackageFileSystem.door { () throws(SystemCallError) in try Directory.open(documentsDirectory, followingLink: true) }
        let package = try PackageFileSystem.packageDirectory(Self.fileName, in: documents)
        try PackageFileSystem.door { () throws(SystemCallError) in try package.makeDirectory(Self.imagesDirectoryName) }
        let images = try PackageFileSystem.packageDirectory(Self.imagesDirectoryName, in: package)
        try writeImages(contents, into: images)
        let encoded = try PackageDocument.encode(contents)
        // The commit point: the door's durable replace of items.json, from a hidden temporary name.
        let temporary = Self.itemsTempPrefix + GroceryPackageContents.randomToken()
        try PackageFileSystem.door { () throws(SystemCallError) in
            try encoded.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in try package.replace(Self.itemsFileName, with: bytes, temporary: temporary) }
            }.get()
        }
        removeLeftovers(keeping: contents.referencedImageFiles, package: package, images: images)
    }

    /// Builds the package under a hidden name in Documents and renames it into place.
    /// - Returns: false when a package appeared meanwhile (the caller starts over).
    private func create(_ contents: GroceryPackageContents) throws -> Bool {
        let documents = try PackageFileSystem.door { () throws(SystemCallError) in try Directory.open(documentsDirectory, followingLink: true) }
        removeStagingLeftovers(in: documents)
        let staging = Self.stagingPrefix + GroceryPackageContents.randomToken()
        guard try PackageFileSystem.door({ () throws(SystemCallError) in try documents.makeDirectory(staging) }) else {
            throw GroceryError.io(path: documents.path(of: staging), operation: "create directory", message: "it exists already")
        }
        do {
            let package = try PackageFileSystem.packageDirectory(staging, in: documents)
            try PackageFileSystem.door { () throws(SystemCallError) in try package.makeDirectory(Self.imagesDirectoryName) }
            try writeImages(contents, into: try PackageFileSystem.packageDirectory(Self.imagesDirectoryName, in: package))
            let encoded = try PackageDocument.encode(contents)
            // rename(2) replaces an empty directory but never a non-empty one.
            let refused = try PackageFileSystem.door { () throws(SystemCallError) in
                try encoded.withUnsafeBytes { bytes in
                    Result { () throws(SystemCallError) in try package.createFile(Self.itemsFileName, with: bytes) }
                }.get()
                try package.sync()
                return try documents.rename(Array(staging.utf8), to: Array(Self.fileName.utf8), in: documents, tolerating: [EEXIST, ENOTEMPTY])
            }
            if refused != 0 {
                try? documents.removeTree(staging)
                return false
            }
        } catch {
            try? documents.removeTree(staging)
            throw error
        }
        try PackageFileSystem.door { () throws(SystemCallError) in try documents.sync() }
        return true
    }

    private func writeImages(_ contents: GroceryPackageContents, into images: Directory) throws {
        guard !contents.pendingImages.isEmpty else { return }
        try PackageFileSystem.door { () throws(SystemCallError) in
            for (file, data) in contents.pendingImages {
                try data.withUnsafeBytes { bytes in
                    Result { () throws(SystemCallError) in try images.createFile(file, with: bytes) }
                }.get()
            }
            try images.sync()
        }
    }

    /// Deletes what a crashed or superseded write left: unreferenced images and items.json temp
    /// files, by name inside the directories' descriptors. Failing to delete is not an error;
    /// the next write tries again.
    private func removeLeftovers(keeping referenced: Set<String>, package: Directory, images: Directory) {
        for name in images.textNames() where !referenced.contains(name) {
            try? images.remove(name)
        }
        for name in package.textNames() where name.hasPrefix(Self.itemsTempPrefix) {
            try? package.remove(name)
        }
    }

    /// Half-built packages of a creator that crashed before its rename (removed through the
    /// descriptor of Documents, bounded, no link followed).
    private func removeStagingLeftovers(in documents: Directory) {
        for name in documents.textNames() where name.hasPrefix(Self.stagingPrefix) {
            try? documents.removeTree(name)
        }
    }
}
