/// What one inotify event (not part of a rename) means for the watcher: which entries to stat,
/// which subtrees to watch and crawl, what to forget. Pure: decided from the event and two facts
/// about the watch tree, so every rule is tested with scripted events.
///
/// | event on a watched directory | decisions |
/// |---|---|
/// | `CREATE` of a directory not watched yet | attach the entry (watch, then crawl); stat the directory |
/// | `CREATE` of anything else | stat the entry; stat the directory |
/// | `DELETE` | forget its watches; remove the entry; stat the directory |
/// | `MOVED_TO` without partner (moved in) | forget what was at the name; attach the entry; stat the directory |
/// | `ATTRIB` of a directory not watched (unreadable before?) | attach the entry |
/// | `MODIFY`, `CLOSE_WRITE`, `ATTRIB` | stat the entry |
/// | `IN_IGNORED` | the watch is gone (its directory deleted or unmounted) |
/// | `DELETE_SELF`, `MOVE_SELF`, `UNMOUNT` of a container root | the container is lost |
/// | a name that is not UTF-8, created or moved in | report it as skipped: it cannot be an item |
/// | a sync cookie created in a container root | the sync is seen |
enum EventPolicy {
    enum Decision: Equatable {
        /// Take the named entry's status (and tags).
        case statEntry
        /// Take the status of the watched directory itself.
        case statDirectory
        /// Watch the named directory (and everything below), then crawl it.
        case attachEntry
        /// The named entry and everything below it are gone.
        case removeEntry(isDirectory: Bool)
        /// Drop the watches (and unwatched records) at and below the named entry.
        case forgetEntry
        /// The kernel dropped this watch.
        case watchVanished
        /// The container root itself went away.
        case containerLost
        /// A sync cookie was created in the container root.
        case cookieSeen(String)
        /// A name that cannot be indexed appeared.
        case skipped(nameBytes: [UInt8])
    }

    /// - Parameters:
    ///   - event: One event that is not half of a paired rename.
    ///   - isContainerRoot: Whether the event's watch is a container root's.
    ///   - entryIsWatched: Whether the named entry is a directory the watch tree already holds.
    static func decide(_ event: InotifyEvent, isContainerRoot: Bool, entryIsWatched: Bool) -> [Decision] {
        let mask = event.mask
        if mask.contains(.ignored) { return [.watchVanished] }
        if mask.contains(.deleteSelf) || mask.contains(.moveSelf) || mask.contains(.unmount) {
            return isContainerRoot ? [.containerLost] : []     // otherwise the parent reports it, by name
        }
        if let raw = event.undecodableName {
            return mask.contains(.create) || mask.contains(.movedTo) ? [.skipped(nameBytes: raw)] : []
        }
        guard let name = event.name else {
            return isContainerRoot && mask.contains(.attrib) ? [.statDirectory] : []
        }
        if Crawler.isCookie(name) {
            return isContainerRoot && mask.contains(.create) ? [.cookieSeen(name)] : []
        }
        let isDirectory = mask.contains(.isDirectory)
        if mask.contains(.create) {
            // A directory the walk of an ancestor already watched and listed needs no second walk.
            return [isDirectory && !entryIsWatched ? .attachEntry : .statEntry, .statDirectory]
        }
        if mask.contains(.delete) { return [.forgetEntry, .removeEntry(isDirectory: isDirectory), .statDirectory] }
        if mask.contains(.movedTo) { return [.forgetEntry, .attachEntry, .statDirectory] }
        if isDirectory && mask.contains(.attrib) && !entryIsWatched { return [.attachEntry] }
        return [.statEntry]
    }
}
