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

/// Watcher → engine. Runs until shutdown, then stops the watcher (which ends the batches).
struct IndexService: Service {
    let daemon: Daemon

    func run() async throws {
        try daemon.watcher.start()
        let watcher = daemon.watcher
        await withGracefulShutdownHandler {
            await daemon.engine.run()
        } onGracefulShutdown: {
            Task { await watcher.stop() }
        }
    }
}
