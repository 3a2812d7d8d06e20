import UbiquityIndex

/// Passes the watcher's batches on to the query engine unchanged, and tells the key-value stores
/// when a batch touches a container's store folder (another device's file arrived, say).
struct KeyValueChangeTap: ChangeSource {
    let source: any ChangeSource
    let stores: KeyValueStores

    func batches() -> AsyncStream<ChangeBatch> {
        let upstream = source.batches()
        let stores = self.stores
        let (stream, sink) = AsyncStream.makeStream(of: ChangeBatch.self)
        let task = Task {
            for await batch in upstream {
                var touched: Set<ContainerID> = []
                for change in batch.changes {
                    switch change {
                    case .stat(let c, let path, _), .remove(let c, let path), .listing(let c, let path, _),
                         .tags(let c, let path, _, _):
                        if KeyValueChangeTap.touches(path) { touched.insert(c) }
                    case .move(let c, let from, let to, _):
                        if KeyValueChangeTap.touches(from) || KeyValueChangeTap.touches(to) { touched.insert(c) }
                    case .listingPart:
                        break       // the container's listing follows them and tells
                    }
                }
                sink.yield(batch)
                for container in touched { stores.filesChanged(in: container) }
            }
            sink.finish()
        }
        sink.onTermination = { _ in task.cancel() }
        return stream
    }

    func sync() async throws -> UInt64 { try await source.sync() }

    func sync(includingTags: Bool) async throws -> UInt64 { try await source.sync(includingTags: includingTags) }

    func applied(through sequence: UInt64) { source.applied(through: sequence) }

    /// The store's folder, a path in it, or the whole container (a crawl's listing).
    static func touches(_ path: [String]) -> Bool {
        path.isEmpty || path.first == KeyValueFiles.directory
    }
}
