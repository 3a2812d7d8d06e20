import CSystemd
import Glibc
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import UbiquityIndex
import UbiquityProtocol
import UbiquityWatch
import UnixSignals

/// Saved index → engine, then watcher → engine. Runs until shutdown, then stops the watcher
/// (which ends the batches) and saves the index.
struct IndexService: Service {
    let daemon: Daemon

    func run() async throws {
        // Before the engine takes any batch: a snapshot the load may owe (its journal could not be
        // continued) is written before the first batch is applied.
        await daemon.loadSavedIndex()
        let watcher = daemon.watcher
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await daemon.engine.run() }
                if daemon.indexStore != nil { group.addTask { await daemon.saveIndexPeriodically() } }
                await group.next()      // the engine's run ends when the watcher stops
                group.cancelAll()
            }
        } onGracefulShutdown: {
            Task { await watcher.stop() }
        }
        await daemon.saveIndex(reason: "shutdown", final: true)
    }
}
