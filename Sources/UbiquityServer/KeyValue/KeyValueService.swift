import ServiceLifecycle

/// Reloads key-value stores when the watcher sees their folders change, until shutdown.
struct KeyValueService: Service {
    let stores: KeyValueStores

    func run() async throws {
        await withGracefulShutdownHandler {
            await stores.run()
        } onGracefulShutdown: {
            stores.finish()
        }
    }
}
