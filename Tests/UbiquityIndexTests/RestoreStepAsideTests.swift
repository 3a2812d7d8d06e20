import Dispatch
import Synchronization
import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The saved index's restore steps aside (``StepAside``) while an answer given meanwhile is
/// written: it looks throughout its work, on each of its threads, and goes no further while it is
/// told to wait; once let go, it restores the index as saved.
@Suite("Restore steps aside")
struct RestoreStepAsideTests {
    /// A gate the restore looks at: while closed, a look waits (and says so, once) until it opens.
    final class Gate: Sendable {
        private let closed = Mutex(true)
        private let looks = Atomic<Int>(0)
        /// Signalled when a look first finds the gate closed.
        let waiting = DispatchSemaphore(value: 0)
        private let opened = DispatchSemaphore(value: 0)
        private let told = Atomic<Bool>(false)

        var lookCount: Int { looks.load(ordering: .relaxed) }

        func look() {
            looks.add(1, ordering: .relaxed)
            guard closed.withLock({ $0 }) else { return }
            if !told.exchange(true, ordering: .relaxed) { waiting.signal() }
            opened.wait()
            opened.signal()     // the next waiting thread goes on too
        }

        func open() {
            closed.withLock { $0 = false }
            opened.signal()
        }
    }

    @Test func theRestoreWaitsWhileTheGateIsClosedAndThenGivesBackTheIndex() throws {
        let (index, descriptor) = SnapshotSplitTests.index(count: 3 * IndexSnapshot.splitAlignment)
        let bytes = SnapshotSplitTests.encode(index)
        let gate = Gate()
        let finished = DispatchSemaphore(value: 0)
        var restored: Result<RestoredIndex, SavedIndexError>?
        SideThread.run({
            restored = Result { () throws(SavedIndexError) in
                try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [descriptor], retention: .init(), now: 0,
                                          bootID: "b", stepAside: StepAside { gate.look() })
            }
            finished.signal()
        }) {
            let reached = gate.waiting.wait(timeout: .now() + .seconds(60)) == .success
            #expect(reached, "the restore looked at the gate")
            // Every path to the end of the restore looks again (the decoding's last stretch), so a
            // restore that ignored the gate would be seen finished here.
            let finishedWhileClosed = finished.wait(timeout: .now()) == .success
            #expect(!finishedWhileClosed, "nothing finishes while the gate is closed")
            gate.open()
        }
        let result = try #require(restored).get()
        #expect(result.entryCount == index.entryCount)
        #expect(result.index.slotColumns.names.count == index.slotColumns.names.count)
        // It looked throughout, not once: at least once per stretch of the slots it decoded.
        #expect(gate.lookCount >= index.slotColumns.names.count / StepAside.stretch)
    }

    @Test func withoutAStepAsideTheRestoreIsTheSame() throws {
        let (index, descriptor) = SnapshotSplitTests.index(count: 3 * IndexSnapshot.splitAlignment)
        let bytes = SnapshotSplitTests.encode(index)
        let gate = Gate()
        gate.open()
        let a = try SnapshotSplitTests.restore(bytes, descriptor)
        let b = try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [descriptor], retention: .init(), now: 0,
                                          bootID: "b", stepAside: StepAside { gate.look() })
        #expect(gate.lookCount > 0)
        let x = a.index.slotColumns, y = b.index.slotColumns
        try #require(x.names.count == y.names.count)
        for i in 0..<x.names.count {
            #expect(x.names[i] == y.names[i] && x.parents[i] == y.parents[i] && x.flagsOf[i] == y.flagsOf[i], "slot \(i)")
        }
    }
}
