import Testing
@testable import UbiquityIndex

@Suite("Query lifecycle")
struct QueryLifecycleTests {
    typealias Lifecycle = QueryLifecycle
    let t0 = Duration.zero
    let container = TreeBuilder().container

    func item(_ n: UInt32, _ path: String, oldPath: String? = nil, size: Int64 = 0) -> ResultItem {
        ResultItem(identity: ItemIdentity(id: n, generation: 0), path: path, oldPath: oldPath,
                   values: [.size: .integer(size)])
    }

    func ms(_ n: Int) -> Duration { .milliseconds(n) }

    /// A live query whose reader has read its (empty) gathering at `t0`.
    func live(interval: Duration = .zero, itemLimit: Int = 100, noticeLimit: Int = 64) -> Lifecycle {
        var lifecycle = Lifecycle(interval: interval, itemLimit: itemLimit, noticeLimit: noticeLimit)
        _ = lifecycle.gathered([], live: true, now: t0)
        for _ in 0..<3 { _ = lifecycle.readerWaits(now: t0) }
        return lifecycle
    }

    /// What a reader gets at `now` without waiting; a reader that would have to wait leaves again.
    func take(_ lifecycle: inout Lifecycle, now: Duration) -> Lifecycle.Delivery? {
        let actions = lifecycle.readerWaits(now: now)
        if case .deliver(let delivery)? = actions.first { return delivery }
        _ = lifecycle.readerCancelled()
        return nil
    }

    func update(_ delta: QueryDelta) -> Lifecycle.Delivery { .event(.update(delta)) }

    // MARK: - Coalescing and batching (ported from the delivery state machine)

    @Test func updatesWaitForTheirBatchingWindow() {
        var lifecycle = live(interval: ms(50))
        #expect(lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: ms(10)) == [])
        #expect(lifecycle.deadline(now: ms(10)) == ms(50))
        #expect(lifecycle.readerWaits(now: ms(10)) == [.armTimer(at: ms(50))])
        #expect(lifecycle.timerFired(now: ms(50)) == [.deliver(update(QueryDelta(added: [item(1, "/a")])))])
        #expect(!lifecycle.hasPendingUpdate)
        // The next window starts at the last delivery.
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2, "/b")]), now: ms(60))
        #expect(take(&lifecycle, now: ms(80)) == nil)
        #expect(take(&lifecycle, now: ms(100)) != nil)
    }

    @Test func aZeroIntervalDeliversAtOnce() {
        var lifecycle = live()
        _ = lifecycle.changesArrived(QueryDelta(removed: [item(1, "/a")]), now: t0)
        #expect(take(&lifecycle, now: t0) == update(QueryDelta(removed: [item(1, "/a")])))
    }

    @Test func aWaitingReaderGetsAZeroIntervalUpdateWithoutATimer() {
        var lifecycle = live()
        #expect(lifecycle.readerWaits(now: t0) == [])
        #expect(lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
                == [.deliver(update(QueryDelta(added: [item(1, "/a")])))])
    }

    @Test func eachItemAppearsOnceWithItsNetChange() {
        var lifecycle = live()
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")], changed: [item(2, "/b2", oldPath: "/b")]), now: t0)
        _ = lifecycle.changesArrived(QueryDelta(changed: [item(1, "/a", size: 5), item(2, "/b3", oldPath: "/b2")],
                                                removed: [item(3, "/c")]), now: t0)
        _ = lifecycle.changesArrived(QueryDelta(added: [item(4, "/d")]), now: t0)
        _ = lifecycle.changesArrived(QueryDelta(removed: [item(4, "/d")]), now: t0)      // came and went
        guard case .event(.update(let delta))? = take(&lifecycle, now: t0) else {
            Issue.record("expected an update")
            return
        }
        #expect(delta.added == [item(1, "/a", size: 5)])              // added + changed = added, new values
        #expect(delta.changed == [item(2, "/b3", oldPath: "/b")])     // two renames = one, from the first path
        #expect(delta.removed == [item(3, "/c")])
    }

    @Test func aChangedThenRemovedItemIsRemovedUnderThePathTheSubscriberKnows() {
        var lifecycle = live()
        _ = lifecycle.changesArrived(QueryDelta(changed: [item(1, "/new", oldPath: "/old")]), now: t0)
        _ = lifecycle.changesArrived(QueryDelta(removed: [item(1, "/new")]), now: t0)
        #expect(take(&lifecycle, now: t0) == update(QueryDelta(removed: [item(1, "/old")])))
    }

    @Test func anItemThatStopsAndStartsMatchingWithinAWindowIsOneChange() {
        var lifecycle = live()
        _ = lifecycle.changesArrived(QueryDelta(removed: [item(1, "/a", size: 2)]), now: t0)
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a", size: 9)]), now: t0)
        _ = lifecycle.changesArrived(QueryDelta(removed: [item(2, "/b")]), now: t0)
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2, "/b2")]), now: t0)     // renamed while it was out
        #expect(take(&lifecycle, now: t0) == update(QueryDelta(changed: [item(1, "/a", size: 9), item(2, "/b2", oldPath: "/b")])))
    }

    @Test func disabledHoldsEverythingUntilEnabled() {
        var lifecycle = live()
        _ = lifecycle.disable()
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
        #expect(lifecycle.deadline(now: t0) == nil)
        #expect(take(&lifecycle, now: t0) == nil)
        _ = lifecycle.enable(now: t0)
        #expect(take(&lifecycle, now: t0) == update(QueryDelta(added: [item(1, "/a")])))
    }

    @Test func pastTheLimitPendingChangesBecomeOneReset() {
        var lifecycle = live(itemLimit: 10)
        for n in 0..<11 { _ = lifecycle.changesArrived(QueryDelta(added: [item(UInt32(n), "/\(n)")]), now: t0) }
        #expect(lifecycle.pending.isEmpty)                 // memory released at once
        for n in 11..<1_000 { _ = lifecycle.changesArrived(QueryDelta(added: [item(UInt32(n), "/\(n)")]), now: t0) }
        #expect(lifecycle.pending.isEmpty)
        #expect(take(&lifecycle, now: t0) == .reset)
        #expect(take(&lifecycle, now: t0) == nil)
        // After the reset, changes coalesce again.
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2_000, "/z")]), now: t0)
        #expect(take(&lifecycle, now: t0) == update(QueryDelta(added: [item(2_000, "/z")])))
    }

    // MARK: - Lifecycle transitions

    @Test func gatheringEventsComeFirstAndInOrder() {
        var lifecycle = Lifecycle(interval: .zero, itemLimit: 100, noticeLimit: 64)
        #expect(lifecycle.gathered([item(1, "/a")], live: true, now: t0) == [])
        #expect(lifecycle.state == .gathering)
        #expect(take(&lifecycle, now: t0) == .event(.gatheringStarted))
        #expect(take(&lifecycle, now: t0) == .event(.gatheringProgress(count: 1)))
        #expect(lifecycle.state == .gathering)
        #expect(take(&lifecycle, now: t0) == .event(.gatheringFinished([item(1, "/a")])))
        #expect(lifecycle.state == .live)
        #expect(take(&lifecycle, now: t0) == nil)
    }

    @Test func aOneShotQueryEndsAfterItsGathering() {
        var lifecycle = Lifecycle(interval: .zero, itemLimit: 100, noticeLimit: 64)
        _ = lifecycle.gathered([], live: false, now: t0)
        #expect(lifecycle.state == .stopped)
        for _ in 0..<3 { #expect(take(&lifecycle, now: t0) != nil) }
        #expect(lifecycle.readerWaits(now: t0) == [.finish])
    }

    @Test func gatheringEventsAreNeverDroppedForNotices() {
        var lifecycle = Lifecycle(interval: .zero, itemLimit: 100, noticeLimit: 2)
        _ = lifecycle.gathered([], live: true, now: t0)
        for n in 0..<1_000 {
            _ = lifecycle.noticeArrived(.notice(.subtreeUnwatched(UnwatchedSubtree(container: container, path: ["\(n)"], reason: "budget"))), now: t0)
        }
        #expect(take(&lifecycle, now: t0) == .event(.gatheringStarted))
        #expect(take(&lifecycle, now: t0) == .event(.gatheringProgress(count: 0)))
        #expect(take(&lifecycle, now: t0) == .event(.gatheringFinished([])))
        // Then only the newest notices, up to the cap.
        #expect(take(&lifecycle, now: t0) == .event(.notice(.subtreeUnwatched(UnwatchedSubtree(container: container, path: ["998"], reason: "budget")))))
        #expect(take(&lifecycle, now: t0) == .event(.notice(.subtreeUnwatched(UnwatchedSubtree(container: container, path: ["999"], reason: "budget")))))
        #expect(take(&lifecycle, now: t0) == nil)
    }

    @Test func theUpdateReleasedByEnableIsNeverDroppedForNotices() {
        var lifecycle = live(interval: .seconds(1), noticeLimit: 2)
        _ = lifecycle.disable()
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: ms(10))
        _ = lifecycle.enable(now: ms(20))
        _ = lifecycle.disable()                          // held again: what enable released still goes out
        for _ in 0..<1_000 { _ = lifecycle.noticeArrived(.notice(.containerAvailable(container)), now: ms(30)) }
        #expect(take(&lifecycle, now: ms(40)) == .event(.notice(.containerAvailable(container))))
        #expect(take(&lifecycle, now: ms(40)) == .event(.notice(.containerAvailable(container))))
        #expect(take(&lifecycle, now: ms(40)) == update(QueryDelta(added: [item(1, "/a")])))
        #expect(take(&lifecycle, now: ms(40)) == nil)
    }

    @Test func enableAfterDisableReleasesOneUpdateAtOnce() {
        var lifecycle = live(interval: .seconds(1))
        #expect(lifecycle.readerWaits(now: t0) == [])
        #expect(lifecycle.disable() == [])
        #expect(lifecycle.state == .paused)
        #expect(lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: ms(10)) == [])   // no timer while paused
        #expect(lifecycle.changesArrived(QueryDelta(removed: [item(2, "/b")]), now: ms(20)) == [])
        // Inside the window, yet released at once, as one update.
        #expect(lifecycle.enable(now: ms(30)) == [.deliver(update(QueryDelta(added: [item(1, "/a")], removed: [item(2, "/b")])))])
        #expect(lifecycle.state == .live)
        #expect(lifecycle.readerWaits(now: ms(30)) == [])      // nothing more, no timer
    }

    @Test func disableCancelsAnArmedTimer() {
        var lifecycle = live(interval: .seconds(1))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: ms(10))
        #expect(lifecycle.readerWaits(now: ms(10)) == [.armTimer(at: .seconds(1))])
        #expect(lifecycle.disable() == [.cancelTimer])
        #expect(lifecycle.timerArmedAt == nil)
    }

    @Test func noticesWhilePausedStillReachTheReader() {
        var lifecycle = live()
        _ = lifecycle.disable()
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
        #expect(lifecycle.readerWaits(now: t0) == [])
        #expect(lifecycle.noticeArrived(.notice(.containerUnavailable(container)), now: t0)
                == [.deliver(.event(.notice(.containerUnavailable(container))))])
        #expect(lifecycle.state == .paused)
        #expect(take(&lifecycle, now: t0) == nil)               // the update is still held
    }

    @Test func stopWhileAReaderWaitsFinishesItAndCancelsTheTimer() {
        var lifecycle = live(interval: .seconds(1))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
        #expect(lifecycle.readerWaits(now: t0) == [.armTimer(at: .seconds(1))])
        #expect(lifecycle.stop(now: ms(10)) == [.finish, .cancelTimer])
        #expect(lifecycle.state == .stopped)
        #expect(lifecycle.readerWaits(now: ms(20)) == [.finish])
    }

    @Test func stopLetsTheReaderReadWhatIsQueuedFirst() {
        var lifecycle = Lifecycle(interval: .zero, itemLimit: 100, noticeLimit: 64)
        _ = lifecycle.gathered([], live: true, now: t0)
        _ = lifecycle.stop(now: t0)
        for _ in 0..<3 { #expect(take(&lifecycle, now: t0) != nil) }
        #expect(lifecycle.readerWaits(now: t0) == [.finish])
    }

    @Test func releaseWhileAReaderWaitsFinishesIt() {
        var lifecycle = live(interval: .seconds(1))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
        #expect(lifecycle.readerWaits(now: t0) == [.armTimer(at: .seconds(1))])
        #expect(lifecycle.release() == [.finish, .cancelTimer])
        #expect(lifecycle.state == .released)
        #expect(lifecycle.timerFired(now: .seconds(1)) == [])
    }

    @Test func aCancelledReaderIsFinishedAndItsTimerCancelled() {
        var lifecycle = live(interval: .seconds(1))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
        #expect(lifecycle.readerWaits(now: t0) == [.armTimer(at: .seconds(1))])
        #expect(lifecycle.readerCancelled() == [.finish, .cancelTimer])
        #expect(lifecycle.readerCancelled() == [])
        #expect(lifecycle.hasPendingUpdate)                      // kept for the next reader
    }

    @Test func aTimerWithNoReaderDoesNothing() {
        var lifecycle = live(interval: .seconds(1))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
        #expect(lifecycle.timerFired(now: .seconds(1)) == [])
        #expect(lifecycle.hasPendingUpdate)
    }

    enum Event: CaseIterable {
        case changes, notice, readerWaits, timerFired, disable, enable, stop, release, readerCancelled
    }

    func lifecycle(in state: Lifecycle.State) -> Lifecycle {
        switch state {
        case .gathering:
            var lifecycle = Lifecycle(interval: .zero, itemLimit: 100, noticeLimit: 64)
            _ = lifecycle.gathered([], live: true, now: t0)
            return lifecycle
        case .live: return live()
        case .paused:
            var lifecycle = live()
            _ = lifecycle.disable()
            return lifecycle
        case .stopped:
            var lifecycle = live()
            _ = lifecycle.stop(now: t0)
            return lifecycle
        case .released:
            var lifecycle = live()
            _ = lifecycle.release()
            return lifecycle
        }
    }

    func send(_ event: Event, to lifecycle: inout Lifecycle) {
        let now = ms(5)
        switch event {
        case .changes: _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: now)
        case .notice: _ = lifecycle.noticeArrived(.notice(.containerAvailable(container)), now: now)
        case .readerWaits: _ = lifecycle.readerWaits(now: now)
        case .timerFired: _ = lifecycle.timerFired(now: now)
        case .disable: _ = lifecycle.disable()
        case .enable: _ = lifecycle.enable(now: now)
        case .stop: _ = lifecycle.stop(now: now)
        case .release: _ = lifecycle.release()
        case .readerCancelled: _ = lifecycle.readerCancelled()
        }
    }

    /// Every state × every event: where it leads.
    @Test(arguments: [Lifecycle.State.gathering, .live, .paused, .stopped, .released])
    func everyEventFromEveryState(_ from: Lifecycle.State) {
        func expected(_ event: Event) -> Lifecycle.State {
            if from == .released || event == .release { return .released }
            if from == .stopped || event == .stop { return .stopped }
            switch (from, event) {
            case (.live, .disable): return .paused
            case (.paused, .enable): return .live
            default: return from
            }
        }
        for event in Event.allCases {
            var lifecycle = lifecycle(in: from)
            #expect(lifecycle.state == from)
            send(event, to: &lifecycle)
            #expect(lifecycle.state == expected(event), "\(from) + \(event)")
        }
    }

    @Test func disableDuringGatheringPausesOnceGatheringIsRead() {
        var lifecycle = lifecycle(in: .gathering)
        _ = lifecycle.disable()
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0)
        for _ in 0..<3 { _ = take(&lifecycle, now: t0) }
        #expect(lifecycle.state == .paused)
        #expect(take(&lifecycle, now: t0) == nil)
    }

    @Test func stoppedAndReleasedQueriesIgnoreChangesAndNotices() {
        for state in [Lifecycle.State.stopped, .released] {
            var lifecycle = lifecycle(in: state)
            #expect(lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: t0) == [])
            #expect(lifecycle.noticeArrived(.notice(.containerAvailable(container)), now: t0) == [])
            #expect(!lifecycle.hasPendingUpdate && lifecycle.notices.isEmpty)
        }
    }

    // MARK: - An unverified answer (freshness: saved)

    /// An answer from the saved index, gathered at `t0` and read whole.
    func unverified(interval: Duration = .zero) -> Lifecycle {
        var lifecycle = Lifecycle(interval: interval, itemLimit: 100, noticeLimit: 64)
        _ = lifecycle.gathered([item(1, "/a")], verified: false, live: true, now: t0)
        #expect(take(&lifecycle, now: t0) == .event(.gatheringStarted))
        #expect(take(&lifecycle, now: t0) == .event(.gatheringProgress(count: 1)))
        #expect(take(&lifecycle, now: t0) == .event(.gatheringFinished([item(1, "/a")], verified: false)))
        return lifecycle
    }

    @Test func verifiedFollowsTheUpdatesTheCheckBrought() {
        var lifecycle = unverified(interval: ms(50))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2, "/b")], removed: [item(1, "/a")]), now: ms(10))
        _ = lifecycle.verificationFinished(now: ms(20))
        // Not before the update, which waits for its window.
        #expect(take(&lifecycle, now: ms(20)) == nil)
        #expect(take(&lifecycle, now: ms(50)) == update(QueryDelta(added: [item(2, "/b")], removed: [item(1, "/a")])))
        #expect(take(&lifecycle, now: ms(50)) == .event(.verified))
        #expect(take(&lifecycle, now: ms(200)) == nil)
    }

    @Test func verifiedGoesOutAtOnceWhenTheCheckFoundNothing() {
        var lifecycle = unverified(interval: ms(50))
        #expect(lifecycle.readerWaits(now: ms(5)) == [])
        #expect(lifecycle.verificationFinished(now: ms(10)) == [.deliver(.event(.verified))])
    }

    @Test func changesAfterTheCheckDoNotHoldVerifiedBack() {
        var lifecycle = unverified(interval: ms(50))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2, "/b")]), now: ms(10))
        _ = lifecycle.verificationFinished(now: ms(20))
        #expect(take(&lifecycle, now: ms(50)) == update(QueryDelta(added: [item(2, "/b")])))
        // A change after the check is the next window's; verified does not wait for it.
        _ = lifecycle.changesArrived(QueryDelta(added: [item(3, "/c")]), now: ms(60))
        #expect(take(&lifecycle, now: ms(60)) == .event(.verified))
        #expect(take(&lifecycle, now: ms(100)) == update(QueryDelta(added: [item(3, "/c")])))
    }

    @Test func aPausedQueryHearsVerifiedOnlyAfterWhatEnableReleases() {
        var lifecycle = unverified()
        _ = lifecycle.disable()
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2, "/b")]), now: ms(10))
        _ = lifecycle.verificationFinished(now: ms(20))
        #expect(take(&lifecycle, now: ms(30)) == nil)
        _ = lifecycle.enable(now: ms(40))
        #expect(take(&lifecycle, now: ms(40)) == update(QueryDelta(added: [item(2, "/b")])))
        #expect(take(&lifecycle, now: ms(40)) == .event(.verified))
    }

    @Test func aResetCarriesTheCheckToo() {
        var lifecycle = Lifecycle(interval: .zero, itemLimit: 1, noticeLimit: 64)
        _ = lifecycle.gathered([], verified: false, live: true, now: t0)
        for _ in 0..<3 { _ = take(&lifecycle, now: t0) }
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2, "/b"), item(3, "/c")]), now: ms(10))
        _ = lifecycle.verificationFinished(now: ms(20))
        #expect(take(&lifecycle, now: ms(20)) == .reset)
        #expect(take(&lifecycle, now: ms(20)) == .event(.verified))
    }

    @Test func aStoppedQueryIsNotToldItIsVerified() {
        var lifecycle = unverified()
        _ = lifecycle.stop(now: ms(10))
        #expect(lifecycle.verificationFinished(now: ms(20)) == [])
        #expect(lifecycle.readerWaits(now: ms(20)) == [.finish])
    }

    @Test func resultsReplacedDropWhatIsPendingForAReset() {
        var lifecycle = live(interval: ms(50))
        _ = lifecycle.changesArrived(QueryDelta(added: [item(1, "/a")]), now: ms(10))
        _ = lifecycle.resultsReplaced(now: ms(10))
        #expect(lifecycle.pending.isEmpty && lifecycle.needsReset)
        // In its window, as an update would be; the reset carries everything after it too.
        _ = lifecycle.changesArrived(QueryDelta(added: [item(2, "/b")]), now: ms(20))
        #expect(take(&lifecycle, now: ms(30)) == nil)
        #expect(take(&lifecycle, now: ms(50)) == .reset)
        #expect(!lifecycle.hasPendingUpdate)
        // A stopped query owes nothing.
        _ = lifecycle.stop(now: ms(60))
        #expect(lifecycle.resultsReplaced(now: ms(70)) == [] && !lifecycle.needsReset)
    }
}
