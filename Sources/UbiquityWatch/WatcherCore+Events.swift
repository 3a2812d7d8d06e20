import Glibc
import UbiquityIndex
import UbiquitySystem

/// Reading a channel's events and performing what ``RenamePairing`` and ``EventPolicy`` decide.
extension WatcherCore {

    /// Reads one buffer of a channel's events and turns it into operations.
    /// - Returns: false when the descriptor is unusable.
    func readAndProcess(_ channel: WatchChannel) -> Bool {
        var events: [InotifyEvent] = []
        do {
            guard try channel.inotify.read(into: &events) else { return true }
        } catch {
            return false
        }
        readRestOfEngineReplace(&events, in: channel)
        let replaced = EngineReplace.firstSteps(in: events)
        let conflictCopies = EngineReplace.conflictCopies(in: events)
        var pairing = RenamePairing(events)
        while let step = pairing.next(events) {
            switch step {
            case .overflow:
                overflowCount += 1
                channel.resync.overflowed(at: System.monotonicNanoseconds())
            case .event(let index):
                if replaced.contains(index) { continue }         // the rename that follows replaces the entry
                handle(events[index], in: channel)
            case .rename(let from, let to) where conflictCopies.contains(from):
                // The item stays; its old content appears as a conflict copy beside it.
                var appeared = events[to]
                appeared.mask = .create
                handle(appeared, in: channel)
            case .rename(let from, let to):
                handleRename(from: events[from], to: events[to], in: channel)
            case .movedOut(let index):
                handleMoveOut(events[index], in: channel)
            case .awaitPartner:
                // The read ended between the halves of a rename: wait a little for the other.
                if channel.inotify.waitReadable(milliseconds: Int32(clamping: configuration.pairingWindow.milliseconds)) {
                    let known = events.count
                    _ = try? channel.inotify.read(into: &events)
                    pairing.arrived(events, from: known)
                }
            }
        }
        if channel.resync.isDue(at: System.monotonicNanoseconds()) { resync(channel) }
        return true
    }

    /// A read that ends half-way through a sync engine's replace (``EngineReplace/pending(in:)``)
    /// reads on: at once when the rest is already queued, and for up to
    /// ``EngineReplace/window`` while the engine's temporary file is still there (its rename
    /// over the name is on the way). Anything else costs one `poll` that does not wait.
    func readRestOfEngineReplace(_ events: inout [InotifyEvent], in channel: WatchChannel) {
        let deadline = System.monotonicNanoseconds() + EngineReplace.window.nanoseconds
        var restIsComing = false
        while let pending = EngineReplace.pending(in: events) {
            let left = restIsComing ? max(0, (deadline - System.monotonicNanoseconds()) / 1_000_000) : 0
            if channel.inotify.waitReadable(milliseconds: Int32(clamping: left)) {
                guard (try? channel.inotify.read(into: &events)) == true else { return }
                restIsComing = false
                continue
            }
            if restIsComing || System.monotonicNanoseconds() >= deadline { return }
            guard pending.renameUnderway || restOfEngineReplaceIsComing(pending, in: channel) else { return }
            restIsComing = true
        }
    }

    /// Whether the rest of a sync engine's replace is on its way: one of its temporary files for
    /// the item is in the watched directory (the rename is coming), or none is but the item is
    /// (the rename happened; the kernel queues its events a moment after the name moves). The
    /// temporary names are looked at first, so a rename between the two looks is not missed.
    func restOfEngineReplaceIsComing(_ pending: EngineReplace.Pending, in channel: WatchChannel) -> Bool {
        guard let directory = channel.tree.directory(pending.wd),
              let root = containers[directory.container]?.root else { return false }
        var resolver = DirectoryResolver(root: root.fd)
        defer { resolver.close() }
        guard let fd = resolver.directory(channel.tree.path(of: pending.wd)) else { return false }
        var info = stat()
        return (pending.temporaryNames + [pending.item]).contains { fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW) == 0 }
    }

    /// Performs what ``EventPolicy`` decides for one event.
    func handle(_ event: InotifyEvent, in channel: WatchChannel) {
        guard let directory = channel.tree.directory(event.wd) else { return }       // a watch we already forgot
        let slot = directory.container
        let entryIsWatched = event.name.map { channel.tree.child(of: event.wd, named: $0) != nil } ?? false
        let decisions = EventPolicy.decide(event, isContainerRoot: directory.parent == nil, entryIsWatched: entryIsWatched)
        guard !decisions.isEmpty else { return }
        let parentPath = channel.tree.path(of: event.wd)
        let name = event.name ?? ""
        for decision in decisions {
            switch decision {
            case .watchVanished: watchVanished(event.wd, in: channel)
            case .containerLost: containerLost(slot)
            case .cookieSeen(let cookie): cookieSeen(cookie, slot)
            case .skipped(let raw):
                if let id = containers[slot]?.descriptor.id {
                    recordSkipped(id, parentPath + [String(decoding: raw, as: UTF8.self)], reason: "name: the name is not valid UTF-8")
                }
            case .statDirectory: addStat(slot, parentPath)
            case .statEntry: addStat(slot, parentPath + [name])
            case .attachEntry: attach(slot, parentPath + [name])
            case .forgetEntry: forget(slot, parent: event.wd, name: name)
            case .removeEntry(let isDirectory): addRemove(slot, parentPath + [name], isDirectory: isDirectory)
            }
        }
    }

    /// A paired `MOVED_FROM`/`MOVED_TO`.
    func handleRename(from source: InotifyEvent, to destination: InotifyEvent, in channel: WatchChannel) {
        guard let sourceDirectory = channel.tree.directory(source.wd), let sourceName = source.name else {
            handle(destination, in: channel)
            return
        }
        guard let destinationDirectory = channel.tree.directory(destination.wd), let destinationName = destination.name,
              sourceDirectory.container == destinationDirectory.container else {
            handleMoveOut(source, in: channel)
            handle(destination, in: channel)
            return
        }
        if Crawler.isCookie(sourceName) || Crawler.isCookie(destinationName) { return }
        let slot = sourceDirectory.container
        let fromParent = channel.tree.path(of: source.wd)
        let toParent = channel.tree.path(of: destination.wd)
        let from = fromParent + [sourceName]
        let to = toParent + [destinationName]
        // Stats already queued name paths this rename is about to change: take them now.
        materialize()

        let moved = channel.tree.child(of: source.wd, named: sourceName)
        if let replaced = channel.tree.child(of: destination.wd, named: destinationName), replaced != moved {
            forget(slot, parent: destination.wd, name: destinationName)     // renamed over an empty directory
        }
        renameUnwatched(slot, from: from, to: to)
        var needsCrawl = false
        if source.mask.contains(.isDirectory) {
            if let moved {
                dropWatches(channel.tree.move(moved, to: destination.wd, name: destinationName), in: channel)
            } else if containers[slot]?.unwatched[ExactName.path(to)] == nil {
                needsCrawl = true                   // a directory we held no watch for
            }
        }
        operations.append(.move(slot, from: from, to: to))
        if source.mask.contains(.isDirectory) { restatMovedAway(slot, from: from, to: to) }
        if needsCrawl { attach(slot, to) }
        addStat(slot, fromParent)
        addStat(slot, toParent)
    }

    /// Stats taken just before a directory's rename found nothing below it when the directory
    /// had moved already (an entry created in it, then the rename, in one read): take them again
    /// at the new place, after the move.
    func restatMovedAway(_ slot: Int, from: [String], to: [String]) {
        for operation in operations {
            guard case .gone(slot, let path) = operation, path.count > from.count, path.starts(with: from) else { continue }
            addStat(slot, to + path.dropFirst(from.count))
        }
    }

    /// A `MOVED_FROM` without partner: moved out of the container (or of everything we watch).
    func handleMoveOut(_ event: InotifyEvent, in channel: WatchChannel) {
        guard let directory = channel.tree.directory(event.wd), let name = event.name, !Crawler.isCookie(name) else { return }
        let parentPath = channel.tree.path(of: event.wd)
        forget(directory.container, parent: event.wd, name: name)
        addRemove(directory.container, parentPath + [name], isDirectory: event.mask.contains(.isDirectory))
        addStat(directory.container, parentPath)
    }

    /// The kernel dropped a watch (`IN_IGNORED`): its directory was deleted or unmounted.
    func watchVanished(_ wd: Int32, in channel: WatchChannel) {
        guard let directory = channel.tree.directory(wd) else { return }
        if directory.parent == nil {
            containerLost(directory.container)
        } else {
            dropWatches(channel.tree.remove(subtree: wd).filter { $0 != wd }, in: channel)
        }
    }

    /// Forgets the watches and unwatched records at and below `parent/name`.
    func forget(_ slot: Int, parent: Int32, name: String) {
        let channel = channel(slot)
        if let child = channel.tree.child(of: parent, named: name) { dropWatches(channel.tree.remove(subtree: child), in: channel) }
        let path = ExactName.path(channel.tree.path(of: parent) + [name])
        guard let container = containers[slot], !container.unwatched.isEmpty else { return }
        let gone = container.unwatched.keys.filter { $0.starts(with: path) }
        for subtree in gone.sorted(by: ExactName.precedes) {
            containers[slot]?.unwatched[subtree] = nil
            notices.append(.subtreeGone(container.descriptor.id, subtree.strings))
        }
    }

    func dropWatches(_ wds: [Int32], in channel: WatchChannel) {
        for wd in wds { channel.inotify.removeWatch(wd) }
    }

    func renameUnwatched(_ slot: Int, from: [String], to: [String]) {
        guard let unwatched = containers[slot]?.unwatched, !unwatched.isEmpty else { return }
        let from = ExactName.path(from), to = ExactName.path(to)
        var renamed: [[ExactName]: String] = [:]
        for (path, reason) in unwatched {
            guard path.starts(with: from) else { renamed[path] = reason; continue }
            let newPath = to + path.dropFirst(from.count)
            renamed[newPath] = reason
            // Told as gone and unwatched anew, so consumers that track the list keep no stale path.
            if let id = containers[slot]?.descriptor.id {
                notices.append(.subtreeGone(id, path.strings))
                notices.append(.subtreeUnwatched(UnwatchedSubtree(container: id, path: newPath.strings, reason: reason)))
            }
        }
        containers[slot]?.unwatched = renamed
    }
}
