public import FoundationEssentials
public import UbiquityKit
public import UbiquityProtocol
import Glibc

/// The shopping list of one container, opened through the daemon: what every `grocery` command
/// except `watch` works on.
///
/// The daemon says where the container is and (in file mode) which item files exist — one query;
/// the names and the package are read from disk directly, as any app reads its own documents.
///
/// ```swift
/// let list = try await GroceryList.open(socketPath: path, container: "com.example.grocery", format: .files)
/// defer { Task { await list.close() } }
/// let added = try await list.add(["milk", "eggs"])
/// let items = try await list.items()
/// ```
public final class GroceryList: Sendable {
    public let connection: UbiquityConnection
    public let container: String
    /// The container's directory.
    public let containerPath: String
    public let documents: String
    public let format: GroceryStorageFormat
    public let files: GroceryItemFiles
    public let package: GroceryPackage
    /// Store mode's store (nil in the other formats).
    public let table: GroceryTable?

    /// Connects to the daemon and asks for the container's directory (the daemon creates
    /// `Documents/` on demand).
    ///
    /// - Throws: ``UbiquityKitError`` when the daemon cannot be reached (`isUnreachable`),
    ///   `ProtocolError` `container.unknown` / `container.forbidden`;
    ///   ``UbiquityKitError/noAnswer(socketPath:seconds:)`` when nothing answers within `helloTimeout`.
    public static func open(socketPath: String, container: String, format: GroceryStorageFormat,
                            helloTimeout: Duration = UbiquityConnection.defaultHelloTimeout) async throws -> GroceryList {
        let connection = try await UbiquityConnection.connect(to: socketPath, clientName: "grocery", helloTimeout: helloTimeout)
        do {
            let url = try await connection.containerURL(container)
            let table = format == .relational ? try await GroceryTable.open(container: url.container, connection: connection) : nil
            return GroceryList(connection: connection, container: url.container, containerPath: url.path,
                               documents: url.documents, format: format, table: table)
        } catch {
            await connection.close()
            throw error
        }
    }

    init(connection: UbiquityConnection, container: String, containerPath: String, documents: String,
         format: GroceryStorageFormat, table: GroceryTable? = nil) {
        self.connection = connection
        self.table = table
        self.container = container
        self.containerPath = containerPath
        self.documents = documents
        self.format = format
        files = GroceryItemFiles(documents: documents)
        package = GroceryPackage(documentsDirectory: documents)
    }

    public func close() async { await connection.close() }

    // MARK: Reading

    /// The query this list's format is found by: `Documents/` of this container only, with the
    /// conflict flag and, unless `dates` is false, the dates `list --sort created` and `show` need.
    /// Not the name: it is the path's last component (``MetadataItem/name``). Each attribute left
    /// out shortens the answer: for 10,000 items the daemon took about 45 ms with the name and
    /// the dates, 40 without the name, 20 without the dates.
    public func makeQuery(live: Bool, batchingInterval: Double? = nil, dates: Bool = true, sync: Bool = false) -> MetadataQuery {
        // Store mode's rows are not files: its list never runs this query (an empty predicate is refused).
        let query = MetadataQuery(connection: connection, predicateFormat: format.predicate ?? "")
        query.searchScopes = .documents
        query.containers = [container]
        query.attributes = (dates ? ["kMDItemFSCreationDate", "kMDItemFSContentChangeDate"] : []) + ["hasUnresolvedConflicts"]
            + (sync ? GrocerySyncMark.attributes : [])
        query.notificationBatchingInterval = batchingInterval
        query.isLive = live
        return query
    }

    /// Every item, unsorted: in file mode one query and one bounded read per item file; in
    /// package mode one load of the package. With `dates` false, items of file mode have no
    /// dates (`created` and `modified` are nil): for a list that shows and sorts by name only.
    /// With `sync`, items of file mode carry their ``GroceryItem/sync`` mark (ask only when
    /// ``isSynced()``: without a sync engine every item would say it is on no other device).
    public func items(dates: Bool = true, sync: Bool = false) async throws -> [GroceryItem] {
        switch format {
        case .relational:
            return try await storeTable().items()
        case .files:
            let query = makeQuery(live: false, dates: dates, sync: sync)
            for try await _ in try await query.start() {}
            return try files.items(for: query.results)
        case .package:
            let query = makeQuery(live: false)
            for try await _ in try await query.start() {}
            return try await items(for: query.results)
        }
    }

    /// Whether the daemon follows a sync engine that shares this container (`status`).
    public func isSynced() async throws -> Bool {
        try await connection.status().syncEngine?.folders.contains { $0.container == container } ?? false
    }

    /// The other devices sharing the container, with how many of its files each still needs
    /// (`storage`), and whether that is known (`none`: no sync engine shares it; `unknown`: the
    /// engine cannot be asked now).
    public func syncDevices() async throws -> (sync: String, devices: [StorageResult.Container.Device]) {
        let storage = try await connection.send(Storage(container: container, largest: 0))
        guard let mine = storage.containers.first(where: { $0.container == container }) else { return ("none", []) }
        return (mine.sync, mine.devices)
    }

    /// The items the query results stand for (the gathered set, or the set after an update).
    /// In package mode, when the package is in conflict, the items that differ in another
    /// version of it are marked ``GroceryItem/inConflict``.
    public func items(for results: [MetadataItem]) async throws -> [GroceryItem] {
        switch format {
        case .files: return try files.items(for: results)
        case .relational: return try await storeTable().items()
        case .package:
            // The package is one result; its contents come from disk.
            guard let result = results.first else { return [] }
            let items = try packageItems()
            guard result.value(forAttribute: "hasUnresolvedConflicts") == .bool(true) else { return items }
            return try await markingConflicts(items)
        }
    }

    func packageItems() throws -> [GroceryItem] {
        try package.load().items.map(GroceryItem.init)
    }

    /// The one item whose id starts with `prefix`.
    /// - Throws: ``GroceryError/unknownItem(prefix:)``, ``GroceryError/ambiguousItem(prefix:candidates:)``,
    ///   ``GroceryError/invalidItemID(_:)``.
    public func item(matching prefix: String) async throws -> GroceryItem {
        try Self.item(matching: prefix, in: try await items())
    }

    /// Resolves every prefix first, so a typo changes nothing.
    public static func item(matching prefix: String, in items: [GroceryItem]) throws -> GroceryItem {
        let id = try GroceryItemID.resolve(prefix, among: items.map(\.id))
        return items.first { $0.id == id }!
    }

    // MARK: Writing

    /// Adds one item per name; every name is validated before anything is written. In package
    /// mode all of them are one coordinated save of the package (``GroceryPackage/update(connection:lockTimeout:_:)``).
    /// - Throws: ``GroceryError/nameTooLong(bytes:limit:)``, or an I/O error.
    public func add(_ names: [String], tags: [String] = []) async throws -> [GroceryItem] {
        for name in names { _ = try GroceryName.validated(name) }
        if !tags.isEmpty, format != .relational { throw GroceryError.tagsNeedStore }
        switch format {
        case .relational:
            return try await storeTable().add(names, tags: tags)
        case .files:
            var added: [GroceryItem] = []
            for name in names {
                let id = try await files.add(name: name)
                added.append(GroceryItem(id: id, name: name, created: Date(), modified: Date()))
            }
            return added
        case .package:
            return try await package.update(connection: connection) { contents in
                try names.map { GroceryItem(try contents.add(name: $0)) }
            }
        }
    }

    /// In file mode, a name someone else changed meanwhile is kept: the new one becomes a
    /// conflict version (``GroceryItemFiles/rename(_:to:connection:)``), and the outcome says so.
    @discardableResult
    public func rename(_ id: GroceryItemID, to name: String) async throws -> Document.SaveOutcome? {
        switch format {
        case .relational:
            try await storeTable().rename(id, to: name)
            return nil
        case .files: return try await files.rename(id, to: name, connection: connection)
        case .package:
            try await package.update(connection: connection) { try $0.rename(id, to: name) }
            return nil
        }
    }

    public func delete(_ ids: [GroceryItemID]) async throws {
        switch format {
        case .relational: try await storeTable().delete(ids)
        case .files: for id in ids { try await files.delete(id, connection: connection) }
        case .package: try await package.update(connection: connection) { contents in for id in ids { try contents.remove(id) } }
        }
    }

    // MARK: Tags (store mode)

    /// The store of store mode. - Throws: ``GroceryError/tagsNeedStore`` in the other formats.
    public func storeTable() throws -> GroceryTable {
        guard let table else { throw GroceryError.tagsNeedStore }
        return table
    }

    // MARK: Images (package mode)

    /// Reads an image file (refusing it by size before reading a byte) and stores it as the item's image.
    /// - Throws: ``GroceryError/imagesNeedPackage`` in file mode, ``GroceryError/imageTooLarge(bytes:limit:)``,
    ///   ``GroceryError/unsupportedImage(path:)``, an I/O error naming the file.
    @discardableResult
    public func setImage(fromFile path: String, for id: GroceryItemID) async throws -> ImageFormat {
        guard format == .package else { throw GroceryError.imagesNeedPackage }
        let data = try GroceryImageFile.read(path)
        return try await package.update(connection: connection) { contents in
            try contents.setImage(data, for: id, source: path)
            return contents.item(id)?.image ?? .png
        }
    }

    public func removeImage(for id: GroceryItemID) async throws {
        guard format == .package else { throw GroceryError.imagesNeedPackage }
        try await package.update(connection: connection) { try $0.removeImage(for: id) }
    }

    /// The item's image. - Throws: ``GroceryError/noImage(_:)`` when it has none.
    public func image(for id: GroceryItemID) throws -> (data: Data, format: ImageFormat) {
        guard format == .package else { throw GroceryError.imagesNeedPackage }
        guard let image = try package.image(for: id) else { throw GroceryError.noImage(id) }
        return image
    }
}

extension GroceryItem {
    init(_ packaged: PackagedItem) {
        self.init(id: packaged.id, name: packaged.name, created: packaged.created, modified: packaged.modified,
                  image: packaged.image)
    }
}
