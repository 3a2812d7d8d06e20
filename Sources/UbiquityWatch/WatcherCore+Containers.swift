import Glibc
import UbiquityIndex
import UbiquitySystem

/// Containers coming and going, watching and crawling subtrees, overflow rescans and sync cookies.
extension WatcherCore {

    /// Watches and crawls a container root; announces whether it is available.
    func attachContainer(_ slot: Int) {
        guard let before = containers[slot] else { return }
        if before.root.map({ !$0.isStill(at: before.descriptor.root) }) ?? true {
            detachContainer(slot)
            switch ContainerRoot.open(before.descriptor.root) {
            case .success(let root):
                containers[slot]?.root = root
                containers[slot]?.unavailableReason = nil
            case .failure(.missing):
                containers[slot]?.unavailableReason = nil
            case .failure(.refused(let reason)):
                containers[slot]?.unavailableReason = reason
            }
        }
        let listing = attach(slot, [])
        let available = listing?.root != nil
        containers[slot]?.available = available
        containers[slot]?.announced = true
        if available && (!before.available || !before.announced) {
            notices.append(.containerAvailable(before.descriptor.id))
        } else if !available && (before.available || !before.announced) {
            detachContainer(slot)
            notices.append(.containerUnavailable(before.descriptor.id))
        }
    }

    /// The root was deleted, moved away or unmounted.
    func containerLost(_ slot: Int) {
        guard let container = containers[slot] else { return }
        detachContainer(slot)
        operations.append(.ready(.listing(container.descriptor.id, [], CrawlListing(root: nil))))
        if container.available { notices.append(.containerUnavailable(container.descriptor.id)) }
        containers[slot]?.available = false
        // Deleted and re-created before we noticed: take it back at once. Replaced by something
        // else (a symlink): the reason is in the status before anyone hears of the loss.
        if Self.somethingIsAt(container.descriptor.root) { attachContainer(slot) }
        flush()
        shared.acknowledge(sequence: sequence) { $1.container == container.descriptor.id }
    }

    /// Whether anything (a symlink included, never followed) is at `path`.
    static func somethingIsAt(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0
    }

    func detachContainer(_ slot: Int) {
        let channel = channel(slot)
        for wd in channel.tree.descriptors(ofContainer: slot) {
            channel.inotify.removeWatch(wd)
            channel.tree.remove(subtree: wd)
        }
        containers[slot]?.unwatched = [:]
        containers[slot]?.root?.close()
        containers[slot]?.root = nil
    }

    // MARK: - Watching and crawling

    /// Watches every directory of the subtree at `path` (each one BEFORE it is read), crawls it and
    /// queues its `.listing`. Watches held below `path` that the walk no longer finds are removed.
    @discardableResult
    func attach(_ slot: Int, _ path: [String]) -> CrawlListing? {
        guard let container = containers[slot], let root = container.root else { return nil }
        var candidates: [Int32] = []
        let channel = channel(slot)
        if let wd = channel.tree.lookup(container: slot, path) { candidates = channel.tree.subtree(wd) }
        let key = ExactName.path(path)
        let previouslyUnwatched = container.unwatched.filter { $0.key.starts(with: key) }
        for key in previouslyUnwatched.keys { containers[slot]?.unwatched[key] = nil }

        // A whole container's entries go out in parts while the walk goes on, for the consumer
        // to apply meanwhile (a first crawl), and a cold disk gets a second walker; a subtree's
        // listing goes whole, with its events.
        var visitor = WatchingVisitor(core: self, channel: channel, container: slot,
                                      partSize: path.isEmpty ? configuration.crawlPartEntries : 0,
                                      readAhead: path.isEmpty ? configuration.crawlReadAhead : .never,
                                      statHelper: path.isEmpty && configuration.crawlStatHelper,
                                      subtreeHelper: path.isEmpty && configuration.crawlSubtreeHelper)
        let result: Crawler.Result
        do {
            result = try crawler.walk(root: root.fd, rootPath: container.descriptor.root, relative: path, visitor: &visitor)
        } catch {
            return nil      // only invalid paths throw, and these come from the kernel and the tree
        }
        candidates += visitor.displaced
        tagPass.add(slot: slot, directories: visitor.visitedInOrder)
        let now = System.monotonicNanoseconds()
        tagPass.noteActivity(at: now)
        tagPass.noteRead(at: now)
        var stale: [Int32] = []
        for wd in Set(candidates) where !visitor.visited.contains(wd) && channel.tree.directory(wd) != nil {
            stale.append(contentsOf: channel.tree.remove(subtree: wd).filter { !visitor.visited.contains($0) })
        }
        dropWatches(stale, in: channel)

        let id = container.descriptor.id
        operations.append(.ready(.listing(id, path, result.listing)))
        // A directory the walk could not open (permissions, out of descriptors) has no watch
        // either: periodic rescans retry it.
        for skipped in result.skipped where ["open", "openat", "fdopendir"].contains(skipped.call) {
            if containers[slot]?.unwatched[ExactName.path(skipped.path)] == nil { markUnwatched(slot, skipped.path, reason: "\(skipped.call) failed: \(skipped.reason)") }
        }
        let unwatchedNow = containers[slot]?.unwatched.filter { $0.key.starts(with: key) } ?? [:]
        for (subtree, reason) in unwatchedNow.sorted(by: { ExactName.precedes($0.key, $1.key) })
        where previouslyUnwatched[subtree] == nil {
            notices.append(.subtreeUnwatched(UnwatchedSubtree(container: id, path: subtree.strings, reason: reason)))
        }
        for subtree in previouslyUnwatched.keys.sorted(by: ExactName.precedes)
        where unwatchedNow[subtree] == nil {
            let watched = channel.tree.lookup(container: slot, subtree.strings) != nil
            notices.append(watched ? .subtreeWatched(id, subtree.strings) : .subtreeGone(id, subtree.strings))
        }
        for skipped in result.skipped where previouslyUnwatched[ExactName.path(skipped.path)] == nil {
            recordSkipped(id, skipped.path, reason: "\(skipped.call): \(skipped.reason)")
        }
        return result.listing
    }

    /// A part of a container's crawl, out at once (``FileSystemChange/listingPart(_:_:)``) with
    /// whatever was queued before it.
    func sendAhead(_ slot: Int, _ part: CrawlListing.Part) {
        guard let id = containers[slot]?.descriptor.id else { return }
        operations.append(.ready(.listingPart(id, part)))
        flush()
    }

    /// Rescans (and tries to watch again) the unwatched subtrees of a container.
    func rescanUnwatched(_ slot: Int) {
        guard let unwatched = containers[slot]?.unwatched, !unwatched.isEmpty else { return }
        // Outermost first; a rescan of a subtree covers the records below it.
        for path in unwatched.keys.sorted(by: { $0.count < $1.count }) where containers[slot]?.unwatched[path] != nil {
            attach(slot, path.strings)
        }
    }

    func markUnwatched(_ slot: Int, _ path: [String], reason: String) {
        containers[slot]?.unwatched[ExactName.path(path)] = reason
    }

    // MARK: - Overflow and sync

    /// Rescans the containers of a channel whose queue overflowed (only they can have lost
    /// events); the index reports only real differences.
    func resync(_ channel: WatchChannel) {
        channel.resync.resynced(at: System.monotonicNanoseconds())
        resyncCount += 1
        // Every sync of these containers registered before this rescan is answered by it.
        let ids = Set(channel.slots.compactMap { containers[$0]?.descriptor.id })
        let waiting = Set(shared.openWaiters().filter { ids.contains($0.waiter.container) }.map(\.id))
        for slot in channel.slots.sorted() {
            guard let container = containers[slot] else { continue }
            if container.available {
                attach(slot, [])
                notices.append(.resync(container.descriptor.id, reason: .queueOverflow))
            } else {
                attachContainer(slot)
            }
        }
        flush()
        shared.acknowledge(sequence: sequence) { id, _ in waiting.contains(id) }
    }

    func cookieSeen(_ cookie: String, _ slot: Int) {
        // Events were lost and the rescan is still to come: that rescan acknowledges this sync.
        guard !channel(slot).resync.isPending else { return }
        flush()
        rescanUnwatched(slot)
        flush()
        shared.acknowledge(sequence: sequence) { $1.cookie == cookie }
    }
}
