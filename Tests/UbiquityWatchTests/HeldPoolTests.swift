import Dispatch
import Foundation
import Testing
import UbiquityTesting

/// CPU-bound tests running in parallel can hold every thread of Swift's shared pool for many
/// seconds. A suite with `.ownThreads` waits with its deadlines on threads of its own, so whatever
/// it waits for must not need the pool either: here the pool is held on purpose while a watcher
/// starts, lists, changes and converges (on CI four watcher tests once timed out after 15 s
/// waiting for a listing their consumer task, on the pool, had not been given a thread to apply).
@Suite(.ownThreads) struct HeldPoolTests {
    @Test func aWatcherStartsAndConvergesWhileTheSharedPoolIsHeld() async throws {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Each holder blocks one thread of the pool until released (or 30 s pass, so a failure
        // here cannot hold the pool for the rest of the run).
        let holders = (0..<threads).map { _ in
            Task.detached {     // pool-ok: holding the shared pool is the scenario
                started.signal()
                return release.wait(timeout: .now() + 30) == .success
            }
        }
        // The pool is full from here on either way: once every holder runs, they hold it; while
        // one still waits for a thread, other tests' jobs hold it (on CI a queue of them once kept
        // a holder waiting over 60 s), and a waiting holder usually takes the next thread that
        // frees up (then only the printed line says the scenario was weaker).
        var waiting = threads
        while waiting > 0, started.wait(timeout: .now() + 5) == .success { waiting -= 1 }
        if waiting > 0 { print("HeldPoolTests: \(waiting) of \(threads) holders wait for a thread of a pool other tests hold") }
        do {
            try await WatchHarness.with(populate: { try FS.write($0 + "/before.txt", "x") }) { h in
                #expect(h.recorder.recorded.hasListing("", containing: "before.txt"))
                try FS.write(h.path("after.txt"), "y")
                try await h.recorder.wait(for: "after.txt") { $0.hasStat("after.txt") }
                try await h.converge()
            }
        } catch {
            for _ in 0..<threads { release.signal() }
            throw error
        }
        for _ in 0..<threads { release.signal() }
        for holder in holders { #expect(await holder.value, "the pool was held until the watcher was done") }
    }
}
