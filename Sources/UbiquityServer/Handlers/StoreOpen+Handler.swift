import UbiquityProtocol

extension StoreOpen: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let container = try session.storeContainer(self.container)
        let stores = session.context.stores, key = container.descriptor.id.rawValue + "/" + store
        let held = session.openStores[key]
        if held == nil, session.openStores.count >= stores.limits.maxOpenStoresPerConnection {
            throw ProtocolError(.serverBusy, "this connection holds \(stores.limits.maxOpenStoresPerConnection) stores open, its limit",
                                details: ["limit": .integer(Int64(stores.limits.maxOpenStoresPerConnection))])
        }
        let writable = await session.mayWrite(container)
        let opened: ContainerStore, created: Bool
        do {
            (opened, created) = try await stores.store(store, of: container, creatingWith: writable ? schema : nil)
        } catch let error as StoreRequestError where error.code == .unknownStore {
            try await session.requireWrite(container, to: store)     // creating it needs the right to write
            throw error
        }
        let action = created ? "created" : try await opened.adopt(schema, mayUpgrade: { writable })
        let handle: Int
        if let held { handle = held.handle } else {
            handle = stores.nextHandle()
            let access = QueryAccess(registry: session.context.registry, peer: session.peer, containers: [container.descriptor.id])
            await opened.subscribe(StoreSubscriber(handle: handle, connection: session.connection, outbox: session.outbox, access: access))
            session.openStores[key] = (handle, opened)
        }
        var description = try await opened.describe()
        description.opened = action
        description.handle = handle
        return description
    }
}
