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

/// READY=1 after the first crawl, STATUS= refreshes, the watchdog, SIGHUP reloads, STOPPING=1.
struct ManagerService: Service {
    let daemon: Daemon

    func run() async throws {
        // Trap SIGHUP before the (possibly long) first crawl: a reload asked for meanwhile waits, not lost.
        let hangups = daemon.settings.trapsSignals ? await UnixSignalsSequence(trapping: .sighup) : nil
        try await daemon.becomeReady()
        let period = min(daemon.settings.watchdogPeriod ?? daemon.settings.statusPeriod, daemon.settings.statusPeriod)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                if let hangups { group.addTask {
                    for await _ in hangups.cancelOnGracefulShutdown() {
                        await daemon.reloadContainers()
                    }
                } }
                group.addTask {
                    while !Task.isCancelled && !Task.isShuttingDownGracefully {
                        if daemon.settings.watchdogPeriod != nil, await daemon.isMakingProgress(timeout: period) {
                            daemon.send { n throws(SystemdError) in try n.watchdog() }
                        }
                        let line = await daemon.statusLine()
                        daemon.send { n throws(SystemdError) in try n.status(line) }
                        daemon.journalSkippedEntries()
                        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: period) }
                    }
                }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
            daemon.send { n throws(SystemdError) in try n.stopping(status: "stopping: telling subscribers and closing the socket") }
        }
    }
}
