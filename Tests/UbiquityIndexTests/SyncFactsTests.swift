import Testing
import UbiquityPredicate
@testable import UbiquityIndex
import UbiquityTesting

/// Sync attributes from a sync engine's facts (``ContainerSyncFacts``): derived per item, unknown
/// when the engine is not reached, and a change of them is an update for live queries.
@Suite("Sync facts: every item's sync attributes")
struct SyncFactsTests {
    static let facts = ContainerSyncFacts(
        known: true, devices: ["B", "C"], connected: ["B"],
        localNeed: ["Documents/stale"], remoteNeed: ["B": ["Documents/new", "Documents/grocery.gro/items.json"], "C": ["Documents/new"]],
        pullErrors: ["Documents/stale": "insufficient space"], readAt: 1_000)

    @Test("In sync, needed here, needed by one device or by all, a package by what is inside, newer than the facts, unknown")
    func derivation() {
        let f = Self.facts
        let held = f.values(for: "Documents/Item_1", modified: 10)
        #expect(held == SyncAttributeValues(downloadingStatus: .current, isDownloading: false, percentDownloaded: 100, isUploaded: true,
                                            isUploading: false, percentUploaded: 100, uploadedToAllDevices: true, currentVersionDevices: ["B", "C"]))
        let new = f.values(for: "Documents/new", modified: 10)
        #expect(new.isUploaded == false && new.isUploading == true && new.uploadedToAllDevices == false && new.currentVersionDevices == [])
        let package = f.values(for: "Documents/grocery.gro", modified: 10)
        #expect(package.currentVersionDevices == ["C"] && package.isUploaded == true && package.isUploading == true
                && package.percentUploaded == 50 && package.uploadedToAllDevices == false)
        let stale = f.values(for: "Documents/stale", modified: 10)
        #expect(stale.downloadingStatus == .downloaded && stale.isDownloading == false && stale.downloadingError == "insufficient space")
        #expect(f.values(for: "Documents", modified: 10).downloadingStatus == .downloaded)   // something inside is needed
        let justWritten = f.values(for: "Documents/Item_1", modified: 1_000)
        #expect(justWritten.isUploaded == false && justWritten.currentVersionDevices == [])
        #expect(ContainerSyncFacts.unknown.values(for: "Documents/Item_1", modified: 10) == .unknown)
        #expect(SyncAttributeValues.unknown.value(of: .isUploaded) == nil)
        #expect(held.value(of: .downloadingStatus) == .string("current") && held.value(of: .isDownloaded) == .bool(true))
    }

    @Test("A change after the whole read counts only once the engine indexed it after the change")
    func changesTheEngineHasNotIndexed() {
        // Item_1 changed at 1,500, after the read at 1,000: the lists (no one needs it) know the
        // older version. Indexed at 1,400 (before the change): still not known; at 1,600: known.
        let before = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], remoteNeed: ["B": []], readAt: 1_000,
                                        indexedAt: ["Documents/Item_1": 1_400])
        #expect(before.values(for: "Documents/Item_1", modified: 1_500).isUploaded == false)
        let after = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], remoteNeed: ["B": []], readAt: 1_000,
                                       indexedAt: ["Documents/Item_1": 1_600, "Documents/grocery.gro/items.json": 1_700])
        #expect(after.values(for: "Documents/Item_1", modified: 1_500).isUploaded == true)
        #expect(after.values(for: "Documents/Item_2", modified: 1_500).isUploaded == false)         // never indexed since
        #expect(after.values(for: "Documents/grocery.gro", modified: 1_650).isUploaded == true)     // by what is inside
        #expect(after.changedPaths(comparedTo: before)?.isSuperset(of: ["Documents/Item_1", "Documents/grocery.gro"]) == true)
    }

    @Test("Byte progress: percentDownloaded from the download here, percentUploaded the mean over the devices, a change of either a changed path")
    func progress() {
        var f = Self.facts
        f.downloadPercents = ["Documents/stale": 42, "Documents/big": 7]
        f.uploadPercents = ["Documents/new": ["B": 30]]
        let stale = f.values(for: "Documents/stale", modified: 10)
        #expect(stale.downloadingStatus == .downloaded && stale.percentDownloaded == 42)
        // A download the need list read before it began does not name yet: downloading all the same.
        let big = f.values(for: "Documents/big", modified: 10)
        #expect(big.downloadingStatus == .downloaded && big.isDownloading == true && big.percentDownloaded == 7)
        // B holds 30 % of it, C none: (30 + 0) / 2.
        let new = f.values(for: "Documents/new", modified: 10)
        #expect(new.isUploading == true && new.percentUploaded == 15 && new.isUploaded == false)
        #expect(f.values(for: "Documents/Item_1", modified: 10).percentDownloaded == 100)
        var later = f
        later.downloadPercents = ["Documents/stale": 80]
        later.uploadPercents = ["Documents/new": ["B": 30]]
        #expect(later.changedPaths(comparedTo: f) == ["Documents/stale", "Documents/big"])
        later.uploadPercents = [:]
        #expect(later.changedPaths(comparedTo: f) == ["Documents/stale", "Documents/big", "Documents/new"])
        #expect(Self.facts.values(for: "Documents/stale", modified: 10).percentDownloaded == 0)   // no progress reported: 0
    }

    @Test("The paths whose attributes may change; all of them when devices, connections or knowing change")
    func changedPaths() {
        let f = Self.facts
        var later = ContainerSyncFacts(known: true, devices: ["B", "C"], connected: ["B"], localNeed: [],
                                       remoteNeed: ["B": ["Documents/grocery.gro/items.json"], "C": ["Documents/new"]],
                                       pullErrors: [:], readAt: 2_000)
        #expect(later.changedPaths(comparedTo: f) == ["Documents/stale", "Documents/new"])
        later = ContainerSyncFacts(known: true, devices: ["B", "C"], connected: ["B", "C"], readAt: 2_000)
        #expect(later.changedPaths(comparedTo: f) == nil)
        #expect(ContainerSyncFacts.unknown.changedPaths(comparedTo: f) == nil)
    }

    @Test("Two spellings of one name (precomposed and decomposed 'é', two files on Linux) each get their own facts, and a change of one is a change of that path only")
    func canonicallyEqualPathsKeepTheirOwnFacts() {
        let composed: ExactName = "Documents/caf\u{E9}", decomposed: ExactName = "Documents/cafe\u{301}"
        let f = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], localNeed: [composed],
                                   remoteNeed: ["B": [decomposed]], pullErrors: [decomposed: "normalizing path: item has UTF8 encoding conflict"],
                                   readAt: 1_000, indexedAt: [composed: 1_600])
        let one = f.values(for: composed, modified: 1_500), other = f.values(for: decomposed, modified: 1_500)
        #expect(one.downloadingStatus == .downloaded && one.isDownloading == true && one.downloadingError == nil, "\(one)")
        #expect(one.isUploaded == true && one.currentVersionDevices == ["B"], "\(one)")
        // Changed at 1,500, after the read, and only its sibling indexed since: held by no one.
        #expect(other.downloadingStatus == .current && other.downloadingError == nil, "\(other)")
        #expect(other.isUploaded == false && other.currentVersionDevices == [], "\(other)")
        #expect(f.values(for: decomposed, modified: 10).downloadingError == "normalizing path: item has UTF8 encoding conflict")
        var progress = f
        progress.downloadPercents = [composed: 40]
        progress.uploadPercents = [decomposed: ["B": 30]]
        #expect(progress.values(for: composed, modified: 10).percentDownloaded == 40)
        #expect(progress.values(for: decomposed, modified: 10).percentDownloaded == 100)
        #expect(progress.values(for: decomposed, modified: 10).percentUploaded == 30)
        #expect(progress.values(for: composed, modified: 10).percentUploaded == 100)
        // Facts that differ only in which spelling they name are not the same facts.
        let swapped = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], localNeed: [decomposed],
                                         remoteNeed: ["B": [decomposed]], pullErrors: [decomposed: "normalizing path: item has UTF8 encoding conflict"],
                                         readAt: 1_000, indexedAt: [composed: 1_600])
        #expect(swapped != f)
        #expect(swapped.changedPaths(comparedTo: f)?.count == 2)
    }

    func names(_ items: some Collection<ResultItem>) -> [String] { items.map { $0.path.split(separator: "/").last.map(String.init) ?? "" } }

    @Test("An update of the facts says how many items it changed: the first facts every one, the same facts again none")
    func updateCountsTheItemsItChanged() async throws {
        let h = QueryEngineTests.Harness(paths: ["Documents/Item_1", "Documents/Item_2"])
        defer { h.finish() }
        let modified = Int64.max / 2
        let facts = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], remoteNeed: ["B": ["Documents/Item_2"]], readAt: modified)
        try await h.engine.synchronize()
        let items = await h.engine.itemCount
        #expect(items >= 3, "the tree is indexed: Documents and its two items at least")
        #expect(await h.engine.updateSyncFacts(facts, for: h.tree.container) == items)
        #expect(await h.engine.updateSyncFacts(facts, for: h.tree.container) == 0)
        // Item_2 reaches B: it and the folder holding it are uploaded now, nothing else changes.
        let held = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], remoteNeed: ["B": []], readAt: modified)
        #expect(await h.engine.updateSyncFacts(held, for: h.tree.container) == 2)
        #expect(await h.engine.updateSyncFacts(nil, for: h.tree.container) == items)
    }

    @Test("A live query of what is not uploaded hears each change of the facts as an update")
    func liveQueryFollowsTheFacts() async throws {
        let h = QueryEngineTests.Harness(paths: ["Documents/Item_1", "Documents/Item_2", "Documents/grocery.gro/items.json"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("isUploaded == NO"))
        var events = h.engine.events(id).makeAsyncIterator()
        #expect(try await nextEvent(&events) == .gatheringStarted)
        _ = try await nextEvent(&events)
        guard case .gatheringFinished(let all, _, _, _)? = try await nextEvent(&events) else {
            Issue.record("expected gatheringFinished")
            return
        }
        #expect(names(all).contains("Item_1"), "a single machine: nothing is uploaded")
        // The engine holds everything but Item_2 on device B (the facts were read after every write).
        let modified = Int64.max / 2
        let facts = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], remoteNeed: ["B": ["Documents/Item_2"]], readAt: modified)
        await h.engine.updateSyncFacts(facts, for: h.tree.container)
        guard case .update(let delta)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return
        }
        #expect(names(delta.removed).contains("Item_1") && names(delta.removed).contains("grocery.gro"), "\(names(delta.removed))")
        #expect(!names(delta.removed).contains("Item_2"))
        // Item_2 reaches B: it leaves the result set too.
        await h.engine.updateSyncFacts(ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], remoteNeed: ["B": []], readAt: modified),
                                       for: h.tree.container)
        guard case .update(let second)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return
        }
        #expect(Set(names(second.removed)) == ["Item_2", "Documents"] && second.added.isEmpty, "\(names(second.removed))")
        // No engine any more (a single machine): nothing is uploaded again.
        await h.engine.updateSyncFacts(nil, for: h.tree.container)
        guard case .update(let back)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return
        }
        #expect(names(back.added).contains("Item_1") && names(back.added).contains("Item_2"))
    }
}
