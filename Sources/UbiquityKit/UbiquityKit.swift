// UbiquityKit — the Swift client library of the daemon's socket.
//
// Owns: a connection that speaks UbiquityProtocol, MetadataQuery (shaped like NSMetadataQuery)
//   and UbiquityContainer.
// Must not: read the index or the file system to answer queries: everything comes from ubiquityd.
// Depends on: UbiquityProtocol, UbiquityPredicate, UbiquityKeyValue (values), UbiquityStore (schemas, values), UbiquitySystem (the door:
//   paths as bytes opened beneath a directory, the durable replace of Document's saves, which
//   run on NIOThreadPool.singleton), swift-nio (+ nio-extras).
//
// Pieces:
//   UbiquityConnection  one socket: hello, requests matched by id (send(_:) takes any operation of
//                       UbiquityProtocol's registry and returns its typed result), events routed
//                       per query, every waiter failed with UbiquityKitError when the connection ends.
//   MetadataQuery       NSMetadataQuery's shape: configure, start(), iterate notifications;
//                       `results` mirrors the daemon's result set at every notification.
//   MetadataItem        one result: path, oldPath, attributes by canonical name.
//   UbiquityContainer   one-call helpers: url(for:), containers(), status().
//   FileVersion         NSFileVersion's shape: versions listed by the daemon, read and resolved
//                       here with the caller's own rights (VersionFiles: below the container root,
//                       no link followed, etag-checked); the daemon never moves or returns files.
//   Document            UIDocument's shape: coordinated saves under the daemon's advisory lock,
//                       of a file (save) or of a package, file by file (updatePackage).
//   KeyValueStore       NSUbiquitousKeyValueStore's shape: typed getters from a local copy kept
//                       current by kv.changed, acknowledged setters, external changes as a sequence.
//   PersistentStore     a relational store (docs/stores.md), Core Data's shape: StoreContext collects
//                       changes saved as one transaction; fetch(StoreFetchRequest) returns typed
//                       StoreRows; fetchedResults is a live fetch (NSFetchedResultsController);
//                       importNotifications() turns store.changed into StoreImportNotifications.
//
// Usage:
//   let connection = try await UbiquityConnection.connect()
//   let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
//   query.searchScopes = .documents
//   for try await note in try await query.start() {
//       if case .didUpdate = note { print(query.results.map(\.name)) }
//   }
//
// Errors: the daemon's refusals are ProtocolError (stable `code`, `details["offset"]` for
// predicates); reaching or losing the daemon is UbiquityKitError. Nothing here calls exit().
