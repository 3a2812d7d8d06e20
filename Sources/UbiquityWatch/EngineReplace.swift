import UbiquityIndex

/// A sync engine's replace, seen by inotify as two steps. Syncthing puts a received version of
/// `X` in place by deleting `X`, then renaming its temporary file (`.syncthing.X.tmp`) over the
/// name: `DELETE X │ MOVED_FROM .syncthing.X.tmp │ MOVED_TO X`. Taken literally, subscribers
/// would see `X` removed and then a new `X` added; it is one new version of the same item, like
/// an atomic save. So a `DELETE` followed in the same read by the engine's rename to the same
/// name is dropped, and the rename replaces the entry as an atomic save does. Pure.
///
/// ```
/// events:   DELETE X │ MOVED_FROM .syncthing.X.tmp (c=4) │ MOVED_TO X (c=4)
/// skipped:  {0}          → the rename alone: one `changed` of X
/// ```
///
/// When the received version conflicts with the local one, Syncthing first renames `X` to a
/// conflict copy, then renames the temporary file over `X`. That too is a new version of the same
/// item, with a conflict version beside it: the first rename is read as the copy appearing
/// (``conflictCopies(in:)``), so `X` keeps its identity and subscribers get one `changed` of `X`
/// with `hasUnresolvedConflicts` true.
///
/// ```
/// events:   MOVED_FROM X (c=3) │ MOVED_TO X.sync-conflict-…-ABCDEFG (c=3) │ MOVED_FROM .syncthing.X.tmp (c=4) │ MOVED_TO X (c=4)
/// copies:   {0}   → the copy is created, X is replaced: one `changed` of X
/// ```
enum EngineReplace {
    /// How long a read that ends half-way through such a replace waits for the rest, when the
    /// engine's temporary file for the name is there. The engine renames it right after, but a
    /// loaded machine can hold it between the two system calls for hundreds of milliseconds;
    /// the wait ends as soon as anything arrives, so the bound matters only when the rename
    /// never comes (a temporary file left beside an item deleted by hand).
    static let window: Duration = .milliseconds(500)

    /// The indices of `DELETE` events that are the first step of such a replace.
    static func firstSteps(in events: [InotifyEvent]) -> Set<Int> {
        var skipped = Set<Int>()
        for (index, event) in events.enumerated() where isFileDelete(event) {
            guard let name = event.name else { continue }
            if engineRenames(to: name, wd: event.wd, in: Array(events[(index + 1)...])) { skipped.insert(index) }
        }
        return skipped
    }

    /// The indices of `MOVED_FROM X` events whose partner is a conflict copy of `X` and which the
    /// engine's rename of its temporary file to `X` follows.
    static func conflictCopies(in events: [InotifyEvent]) -> Set<Int> {
        var copies = Set<Int>()
        for (index, event) in events.enumerated() where event.mask.contains(.movedFrom) && !event.mask.contains(.isDirectory) {
            guard let name = event.name,
                  let partner = events[(index + 1)...].first(where: { $0.mask.contains(.movedTo) && $0.cookie == event.cookie }),
                  partner.wd == event.wd, let copy = partner.name,
                  let original = ConflictCopyName.parse(copy)?.original, ExactName.sameBytes(original, name),
                  engineRenames(to: name, wd: event.wd, in: events) else { continue }
            copies.insert(index)
        }
        return copies
    }

    /// Whether `events` hold the engine's rename of its temporary file for `name` to `name`.
    /// Names are compared byte for byte: a canonically equal sibling is another file.
    private static func engineRenames(to name: String, wd: Int32, in events: [InotifyEvent]) -> Bool {
        let temporary = SyncEngineFiles.temporaryNames(for: name)
        return events.contains { arrival in
            guard arrival.wd == wd, arrival.name.map({ ExactName.sameBytes($0, name) }) == true, arrival.mask.contains(.movedTo) else { return false }
            return events.contains { event in event.mask.contains(.movedFrom) && event.cookie == arrival.cookie && event.wd == wd
                && event.name.map { name in temporary.contains { ExactName.sameBytes($0, name) } } == true }
        }
    }

    /// A read that ends before such a replace is complete.
    struct Pending: Equatable {
        /// The directory's watch.
        let wd: Int32
        /// The item's name (the temporary file's while its rename is underway).
        let item: String
        /// The engine's temporary names for the item: while one of them is in the directory, its
        /// rename over the item is coming. When none is there but the item is, the rename has
        /// happened and its events are being queued.
        let temporaryNames: [String]
        /// The read ends with the `MOVED_FROM` of the temporary file: its `MOVED_TO` is queued
        /// with it, so there is nothing to check before reading on.
        let renameUnderway: Bool
    }

    /// Whether a read ends half-way: with a file's `DELETE` (the kernel queues the engine's rename
    /// right after it, but a read can end between them), with the rename of a file to its own
    /// conflict copy, between the halves of the rename of an engine's temporary file, or with a
    /// file's `DELETE` followed by other events but not by the name coming back (the engine can
    /// touch its temporary file, or another file change can land, between its two steps). The
    /// caller reads on (``WatcherCore/readRestOfEngineReplace(_:in:)``), waiting only while the
    /// engine's temporary file or the name is there.
    static func pending(in events: [InotifyEvent]) -> Pending? {
        if let last = events.last, !last.mask.contains(.isDirectory), let name = last.name,
           last.mask.contains(.movedFrom), SyncEngineFiles.isTemporary(name) {
            return Pending(wd: last.wd, item: name, temporaryNames: [name], renameUnderway: true)
        }
        // The last first step of a replace, whatever came after it (the engine touching its
        // temporary file, another file or directory): its rename can still be coming, unless the
        // read already shows the name back.
        guard let index = events.lastIndex(where: { isFileDelete($0) || isRenameToOwnConflictCopy($0, in: events) }),
              let name = events[index].name,
              let item = events[index].mask.contains(.delete) ? name : ConflictCopyName.parse(name)?.original else { return nil }
        let wd = events[index].wd
        let back = events[(index + 1)...].contains {
            $0.wd == wd && $0.name.map { ExactName.sameBytes($0, item) } == true && ($0.mask.contains(.create) || $0.mask.contains(.movedTo))
        }
        return back ? nil : Pending(wd: wd, item: item, temporaryNames: SyncEngineFiles.temporaryNames(for: item), renameUnderway: false)
    }

    /// `MOVED_TO` of a file's own conflict copy, its `MOVED_FROM` (the file) in `events`.
    private static func isRenameToOwnConflictCopy(_ event: InotifyEvent, in events: [InotifyEvent]) -> Bool {
        guard event.mask.contains(.movedTo), !event.mask.contains(.isDirectory), let name = event.name,
              let original = ConflictCopyName.parse(name)?.original else { return false }
        return events.contains {
            $0.mask.contains(.movedFrom) && $0.cookie == event.cookie && $0.wd == event.wd && $0.name.map { ExactName.sameBytes($0, original) } == true
        }
    }

    private static func isFileDelete(_ event: InotifyEvent) -> Bool {
        event.mask.contains(.delete) && !event.mask.contains(.isDirectory) && event.name != nil
    }
}
