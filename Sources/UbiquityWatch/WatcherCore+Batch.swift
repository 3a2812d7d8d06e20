import Glibc
import UbiquityIndex
import UbiquitySystem

/// Building the batch: queued stats taken relative to the held roots, emitted in order with the
/// notices, and the status published first.
extension WatcherCore {

    func addStat(_ slot: Int, _ path: [String]) {
        if pendingStats.insert(StatKey(container: slot, path: path)).inserted {
            operations.append(.stat(slot, path))
        }
    }

    func addRemove(_ slot: Int, _ path: [String], isDirectory: Bool) {
        guard let id = containers[slot]?.descriptor.id else { return }
        operations.append(.ready(.remove(id, path)))
        if isDirectory { pendingStats.removeAll() } else { pendingStats.remove(StatKey(container: slot, path: path)) }
    }

    /// Takes the queued stats now.
    ///
    /// Each status (and the entry's tags) is read relative to its parent directory, reached from
    /// the held root one component at a time (``DirectoryResolver``): never through a symlink,
    /// never a path longer than one name.
    func materialize() {
        var resolvers: [Int: DirectoryResolver] = [:]
        defer { for slot in resolvers.keys { resolvers[slot]?.close() } }
        func entry(_ slot: Int, _ path: [String]) -> FileStat? {
            guard let container = containers[slot], let root = container.root else { return nil }
            if path.isEmpty { return Crawler.restat(root.fd) }
            if resolvers[slot] == nil { resolvers[slot] = DirectoryResolver(root: root.fd) }
            return resolvers[slot]!.entry(path, describing: System.join(container.descriptor.root, path))
        }
        for i in resolvedPrefix..<operations.count {
            switch operations[i] {
            case .stat(let slot, let path):
                guard let id = containers[slot]?.descriptor.id, let stat = entry(slot, path) else {
                    operations[i] = .gone(slot, path)
                    continue
                }
                operations[i] = .ready(.stat(id, path, stat))
            case .move(let slot, let from, let to):
                guard let id = containers[slot]?.descriptor.id else { continue }
                operations[i] = .ready(.move(id, from: from, to: to, stat: entry(slot, to)))
            case .ready, .gone:
                continue
            }
        }
        resolvedPrefix = operations.count
        pendingStats.removeAll()
    }

    /// Emits what was built as one batch.
    func flush() {
        guard !operations.isEmpty || !notices.isEmpty else { return }
        materialize()
        var changes: [FileSystemChange] = []
        changes.reserveCapacity(operations.count)
        for operation in operations {
            if case .ready(let change) = operation { changes.append(change) }
        }
        operations.removeAll(keepingCapacity: true)
        resolvedPrefix = 0
        let batchNotices = notices
        notices.removeAll()
        guard !changes.isEmpty || !batchNotices.isEmpty else { return }
        sequence += 1
        publishStatus()         // first: whoever sees batch N sees a status at least as new
        output.yield(ChangeBatch(sequence: sequence, changes: changes, notices: batchNotices))
    }

    /// Tells subscribers' journal and `status` about an entry that cannot be indexed; an entry
    /// already listed (a rescan finds it again) is not counted twice.
    func recordSkipped(_ id: ContainerID, _ path: [String], reason: String) {
        notices.append(.skipped(id, path, reason: reason))
        let entry = SkippedEntry(container: id, path: path, reason: reason)
        guard !skippedEntries.contains(entry) else { return }
        skippedTotal += 1
        skippedEntries.append(entry)
        if skippedEntries.count > Self.maxSkippedEntries { skippedEntries.removeFirst() }
    }

    func publishStatus() {
        var unwatched: [UnwatchedSubtree] = []
        var available: [ContainerID] = []
        var unavailable: [ContainerID] = []
        var roots: [ContainerID: RootLocation] = [:]
        var reasons: [ContainerID: String] = [:]
        for container in containers.values {
            let id = container.descriptor.id
            if container.available, let root = container.root {
                available.append(id)
                roots[id] = RootLocation(path: container.descriptor.root, device: root.device, inode: root.inode)
            } else {
                unavailable.append(id)
                reasons[id] = container.unavailableReason
            }
            for (path, reason) in container.unwatched {
                unwatched.append(UnwatchedSubtree(container: id, path: path.strings, reason: reason))
            }
        }
        unwatched.sort(by: UnwatchedSubtree.precedes)
        let status = WatchStatus(
            watchesUsed: watchesUsed, watchBudget: budget, kernelWatchLimit: kernelLimit, unwatchedSubtrees: unwatched,
            overflowCount: overflowCount, resyncCount: resyncCount, availableContainers: available.sorted(),
            unavailableContainers: unavailable.sorted(), unavailableReasons: reasons, lastSequence: sequence,
            skippedEntries: skippedEntries, skippedTotal: skippedTotal, inotifyInstances: channels.count,
            tagPassPending: tagPass.pending)
        shared.publish(status, roots: roots, commandsRun: commandsRun)
    }
}
