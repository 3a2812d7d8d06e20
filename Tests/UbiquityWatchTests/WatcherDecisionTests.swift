import Testing
import UbiquityIndex
@testable import UbiquityWatch

/// The watcher's decisions without a kernel: rename pairing and what each event means, from
/// scripted events. (Their effect on real directories is in the FileWatcher suites.)
@Suite("Watcher decisions")
struct WatcherDecisionTests {
    static func event(_ mask: InotifyMask, _ name: String? = nil, wd: Int32 = 1, cookie: UInt32 = 0) -> InotifyEvent {
        InotifyEvent(wd: wd, mask: mask, cookie: cookie, name: name)
    }

    /// Every step `pairing` yields over `events`; `.awaitPartner` is answered with `more`.
    static func steps(_ events: [InotifyEvent], more: [InotifyEvent] = []) -> [RenamePairing.Step] {
        var events = events
        var pairing = RenamePairing(events)
        var steps: [RenamePairing.Step] = []
        var answered = false
        while let step = pairing.next(events) {
            steps.append(step)
            if step == .awaitPartner && !answered {
                answered = true
                let known = events.count
                events += more
                pairing.arrived(events, from: known)
            }
        }
        return steps
    }

    // MARK: A sync engine's replace

    @Test func aDeleteFollowedByTheEnginesRenameOverTheNameIsDropped() {
        let events = [Self.event(.delete, "Item_1"), Self.event(.movedFrom, ".syncthing.Item_1.tmp", cookie: 4),
                      Self.event(.movedTo, "Item_1", cookie: 4)]
        #expect(EngineReplace.firstSteps(in: events) == [0])
        #expect(EngineReplace.pending(in: events) == nil)
        // Another name, another directory, a rename from a file that is not the engine's: kept.
        let others = [Self.event(.delete, "Item_1"), Self.event(.movedFrom, ".syncthing.Item_2.tmp", cookie: 5),
                      Self.event(.movedTo, "Item_1", cookie: 5),
                      Self.event(.delete, "Item_3"), Self.event(.movedFrom, ".syncthing.Item_3.tmp", wd: 2, cookie: 6),
                      Self.event(.movedTo, "Item_3", wd: 2, cookie: 6),
                      Self.event(.delete, "Item_4"), Self.event(.movedFrom, "draft", cookie: 7), Self.event(.movedTo, "Item_4", cookie: 7)]
        #expect(EngineReplace.firstSteps(in: others).isEmpty)
        #expect(EngineReplace.firstSteps(in: [Self.event([.delete, .isDirectory], "d"), Self.event(.movedFrom, ".syncthing.d.tmp", cookie: 8),
                                               Self.event(.movedTo, "d", cookie: 8)]).isEmpty)
    }

    @Test func aRenameToItsOwnConflictCopyBeforeTheEnginesRenameIsTheCopyAppearing() {
        let copy = "Item_1.sync-conflict-20261122-103000-ABCDEFG"
        let events = [Self.event(.movedFrom, "Item_1", cookie: 3), Self.event(.movedTo, copy, cookie: 3),
                      Self.event(.movedFrom, ".syncthing.Item_1.tmp", cookie: 4), Self.event(.movedTo, "Item_1", cookie: 4)]
        #expect(EngineReplace.conflictCopies(in: events) == [0])
        // Without the engine's rename after it, a rename to a copy's name is an ordinary rename.
        #expect(EngineReplace.conflictCopies(in: Array(events.prefix(2))).isEmpty)
        #expect(EngineReplace.pending(in: Array(events.prefix(2)))?.temporaryNames == [".syncthing.Item_1.tmp", "~syncthing~Item_1.tmp"])
        // A rename to another item's copy name is not this.
        #expect(EngineReplace.conflictCopies(in: [Self.event(.movedFrom, "Item_2", cookie: 3)] + events.dropFirst()).isEmpty)
    }

    /// `café` precomposed and decomposed are two files side by side, equal as strings: the
    /// delete of one is no step of the engine's replace of the other, nor is a rename of one to
    /// the other's conflict copy that copy appearing. Read so, the file deleted or moved away
    /// stayed in the index.
    @Test func theEnginesReplaceOfANameIsNotOneOfItsCanonicallyEqualSibling() {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let replace = [Self.event(.delete, decomposed), Self.event(.movedFrom, ".syncthing.\(composed).tmp", cookie: 4),
                       Self.event(.movedTo, composed, cookie: 4)]
        #expect(EngineReplace.firstSteps(in: replace).isEmpty)
        let afterDelete = EngineReplace.pending(in: [Self.event(.delete, decomposed), Self.event(.create, composed)])
        #expect(afterDelete.map { ExactName.sameBytes($0.item, decomposed) } == true, "the name is not back")
        let copy = composed + ".sync-conflict-20261122-103000-ABCDEFG"
        let moved = [Self.event(.movedFrom, decomposed, cookie: 3), Self.event(.movedTo, copy, cookie: 3),
                     Self.event(.movedFrom, ".syncthing.\(composed).tmp", cookie: 4), Self.event(.movedTo, composed, cookie: 4)]
        #expect(EngineReplace.conflictCopies(in: moved).isEmpty)
        #expect(EngineReplace.pending(in: Array(moved.prefix(2))) == nil, "no rename of a file to its own copy")
    }

    @Test func aReadEndingInADeleteAsksForTheEnginesTemporaryNames() {
        let pending = EngineReplace.pending(in: [Self.event(.create, "a"), Self.event(.delete, "Item_1", wd: 3)])
        #expect(pending?.wd == 3)
        #expect(pending?.item == "Item_1")
        #expect(pending?.temporaryNames == [".syncthing.Item_1.tmp", "~syncthing~Item_1.tmp"])
        // Other events after the delete: its rename can still come, unless the name is back.
        #expect(EngineReplace.pending(in: [Self.event(.delete, "Item_1"), Self.event(.create, "a")])?.item == "Item_1")
        #expect(EngineReplace.pending(in: [Self.event(.delete, "Item_1"), Self.event(.create, "Item_1")]) == nil)
        // A directory's event after it, or one about the watched directory itself (no name): the same.
        #expect(EngineReplace.pending(in: [Self.event(.delete, "Item_1"), Self.event([.create, .isDirectory], "d")])?.item == "Item_1")
        #expect(EngineReplace.pending(in: [Self.event(.delete, "Item_1"), Self.event(.create, "a"),
                                           Self.event(.movedFrom, "b", cookie: 9), Self.event(.movedTo, "Item_1", cookie: 9)]) == nil)
        #expect(pending?.renameUnderway == false)
    }

    @Test func aReadEndingBetweenTheHalvesOfTheEnginesRenameReadsOnWithoutLooking() {
        let split = [Self.event(.delete, "Item_1"), Self.event(.movedFrom, ".syncthing.Item_1.tmp", cookie: 4)]
        #expect(EngineReplace.pending(in: split) == EngineReplace.Pending(wd: 1, item: ".syncthing.Item_1.tmp", temporaryNames: [".syncthing.Item_1.tmp"], renameUnderway: true))
        #expect(EngineReplace.pending(in: [Self.event(.movedFrom, "draft", cookie: 4)]) == nil)
    }

    // MARK: Rename pairing

    @Test func halvesOfARenameAreOneStepWhereverTheToHalfIs() {
        let steps = Self.steps([
            Self.event(.create, "a"),
            Self.event(.movedFrom, "x", cookie: 7),
            Self.event(.modify, "b"),
            Self.event(.movedTo, "y", wd: 2, cookie: 7),
        ])
        #expect(steps == [.event(0), .rename(from: 1, to: 3), .event(2)])
    }

    @Test func interleavedRenamesPairByCookieAndInOrder() {
        let steps = Self.steps([
            Self.event(.movedFrom, "a", cookie: 1),
            Self.event(.movedFrom, "b", cookie: 2),
            Self.event(.movedTo, "b2", cookie: 2),
            Self.event(.movedTo, "a2", cookie: 1),
            // A cookie seen again later (the kernel's counter wrapped): pairs with the later arrival.
            Self.event(.movedFrom, "c", cookie: 1),
            Self.event(.movedTo, "c2", cookie: 1),
        ])
        #expect(steps == [.rename(from: 0, to: 3), .rename(from: 1, to: 2), .rename(from: 4, to: 5)])
    }

    @Test func aMoveToBeforeItsMoveFromIsAMoveInAndTheMoveFromAMoveOut() {
        let steps = Self.steps([Self.event(.movedTo, "in", cookie: 5), Self.event(.movedFrom, "out", cookie: 5)])
        #expect(steps == [.event(0), .awaitPartner, .movedOut(1)])
    }

    @Test func aMoveFromEndingTheReadWaitsOnceForItsPartner() {
        let arrived = Self.steps([Self.event(.create, "a"), Self.event(.movedFrom, "x", cookie: 9)],
                                 more: [Self.event(.movedTo, "y", cookie: 9)])
        #expect(arrived == [.event(0), .awaitPartner, .rename(from: 1, to: 2)])
        let never = Self.steps([Self.event(.movedFrom, "x", cookie: 9)], more: [Self.event(.create, "z")])
        #expect(never == [.awaitPartner, .movedOut(0), .event(1)])
        let notLast = Self.steps([Self.event(.movedFrom, "x", cookie: 9), Self.event(.create, "z")])
        #expect(notLast == [.movedOut(0), .event(1)])
    }

    @Test func anOverflowIsItsOwnStep() {
        let steps = Self.steps([Self.event(.create, "a"), InotifyEvent(wd: -1, mask: .queueOverflow, cookie: 0, name: nil)])
        #expect(steps == [.event(0), .overflow])
    }

    // MARK: Event policy

    static func decide(_ mask: InotifyMask, _ name: String? = "x", root: Bool = false, watched: Bool = false) -> [EventPolicy.Decision] {
        EventPolicy.decide(event(mask, name), isContainerRoot: root, entryIsWatched: watched)
    }

    @Test func aNewDirectoryIsWatchedThenCrawledUnlessAnAncestorsWalkDidIt() {
        #expect(Self.decide([.create, .isDirectory]) == [.attachEntry, .statDirectory])
        #expect(Self.decide([.create, .isDirectory], watched: true) == [.statEntry, .statDirectory])
        #expect(Self.decide(.create) == [.statEntry, .statDirectory])
    }

    @Test func deletesForgetRemoveAndRestatTheDirectory() {
        #expect(Self.decide(.delete) == [.forgetEntry, .removeEntry(isDirectory: false), .statDirectory])
        #expect(Self.decide([.delete, .isDirectory]) == [.forgetEntry, .removeEntry(isDirectory: true), .statDirectory])
    }

    @Test func aMoveInIsCrawledInPlaceOfWhateverWasThere() {
        #expect(Self.decide(.movedTo) == [.forgetEntry, .attachEntry, .statDirectory])
    }

    @Test func writesAndAttributeChangesAreOneStat() {
        for mask: InotifyMask in [.modify, .closeWrite, .attrib] { #expect(Self.decide(mask) == [.statEntry]) }
        // A directory without a watch (unreadable before?) is tried again when its mode changes.
        #expect(Self.decide([.attrib, .isDirectory]) == [.attachEntry])
        #expect(Self.decide([.attrib, .isDirectory], watched: true) == [.statEntry])
    }

    @Test func eventsAboutTheWatchedDirectoryItself() {
        #expect(Self.decide(.attrib, nil, root: true) == [.statDirectory])
        #expect(Self.decide(.attrib, nil, root: false) == [])       // its parent reports it, by name
        #expect(Self.decide(.deleteSelf, nil, root: true) == [.containerLost])
        #expect(Self.decide(.moveSelf, nil, root: true) == [.containerLost])
        #expect(Self.decide(.moveSelf, nil, root: false) == [])
        #expect(Self.decide(.ignored, nil) == [.watchVanished])
    }

    @Test func cookiesAndUndecodableNames() {
        let cookie = Crawler.cookiePrefix + "1-2"
        #expect(Self.decide(.create, cookie, root: true) == [.cookieSeen(cookie)])
        #expect(Self.decide(.create, cookie, root: false) == [])
        #expect(Self.decide(.delete, cookie, root: true) == [])
        let raw: [UInt8] = [0x66, 0xFF]
        let created = InotifyEvent(wd: 1, mask: .create, cookie: 0, name: nil, undecodableName: raw)
        #expect(EventPolicy.decide(created, isContainerRoot: false, entryIsWatched: false) == [.skipped(nameBytes: raw)])
        let modified = InotifyEvent(wd: 1, mask: .modify, cookie: 0, name: nil, undecodableName: raw)
        #expect(EventPolicy.decide(modified, isContainerRoot: false, entryIsWatched: false) == [])
    }
}
