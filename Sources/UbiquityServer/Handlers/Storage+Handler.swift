import UbiquityProtocol

extension Storage: AnsweredOperation {
    func answer(in session: Session) async throws -> StorageResult {
        let containers = try session.context.registry.containers(named: container.map { [$0] } ?? [], for: session.peer)
        var answered: [StorageResult.Container] = []
        for container in containers {
            guard let storage = await session.context.engine.storage(of: container.descriptor.id, largest: largest ?? 10) else { continue }
            answered.append(StorageResult.Container(
                container: container.descriptor.id.rawValue,
                documentsItems: storage.documentsItems, documentsBytes: storage.documentsBytes,
                dataItems: storage.dataItems, dataBytes: storage.dataBytes,
                largest: storage.largest.map { .init(path: $0.path, size: $0.size) },
                sync: storage.syncKnown.map { $0 ? "known" : "unknown" } ?? "none",
                devices: storage.devices.map { .init(device: $0.device, connected: $0.connected, needs: $0.needs) },
                evictedItems: storage.evictedItems, evictedBytes: storage.evictedBytes))
        }
        return StorageResult(containers: answered)
    }
}
