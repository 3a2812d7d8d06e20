import Foundation
import Synchronization
import Testing
import UbiquityJSON
import UbiquityTesting

/// The daemon's services (the socket server, readiness, the index) start in no fixed order: on a
/// busy pool the socket was bound and readiness asked the watcher to synchronise before the index
/// service had started it, and the daemon stopped with `watch.stopped` before it was ready.
@Suite(.ownThreads) struct DaemonStartOrderTests {
    /// With no saved index the watcher runs before any service has taken a step: held at a gate
    /// after `run()`'s first step, the daemon's watcher already answers.
    @Test func theWatcherRunsBeforeAnyServiceTakesAStep() async throws {
        let gate = HeldJobsExecutor()
        let daemon = try await InProcessDaemon(executor: gate) { daemon in
            defer { gate.release() }
            // `run()` has reached its service group: the group's first job waits at the gate.
            #expect(gate.waitUntilHolding(within: 30), "run() took no step past its first:\n\(daemon.log)")
            #expect(await daemon.daemon.watcher.ping(), "the watcher was not running when the services began:\n\(daemon.log)")
        }
        let path = try daemon.place("Item_1", contents: "Milk")
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        let (started, _) = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","live":false}"#)
        #expect(started["error"] == nil, "\(started)")
        let gathered = try SinceQueryDaemonTests.next(client, "query.gatheringFinished")
        #expect(gathered["results"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == [path], "\(gathered)")
        try await daemon.stop()
    }

    struct Refused: Error {}

    /// A test that gives up on the daemon while it starts (its `started` throws) ends it: the
    /// daemon's task is cancelled and awaited, its files removed, the error passed on.
    @Test func aStartGivenUpOnEndsTheDaemon() async throws {
        let directory = Mutex<String?>(nil)
        await #expect(throws: Refused.self) {
            _ = try await InProcessDaemon(started: { daemon in
                directory.withLock { $0 = daemon.directory }
                throw Refused()
            })
        }
        let made = try #require(directory.withLock { $0 })
        #expect(!FileManager.default.fileExists(atPath: made), "\(made) is left")
    }
}
