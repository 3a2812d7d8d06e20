// UbiquityWatch — every file-system observation; the only module that talks to the kernel about files.
//
// Owns: the crawler (raw openat/readdir/statx, never following symlinks; a second thread taking
//   part of a directory's statx calls, StatHelper; a read-ahead thread when the disk is cold), inotify (one instance per container) with rename pairing, overflow
//   rescans, the watch budget and rescans of unwatched subtrees, cookie sync, and the tag reader
//   (xattrs). Everything below a container root is read
//   relative to descriptors (ContainerRoot, DirectoryResolver), never by path. The decisions —
//   which events are one rename (RenamePairing), what an event means (EventPolicy), when to rescan
//   (ResyncSchedule), where a watch sits (WatchTree) — are pure types; WatcherCore performs them
//   through the door (UbiquitySystem's `System.call`; `System+Watch.swift` adds the statx of an
//   entry), failing with WatchError, which carries the door's SystemCallError.
// Must not: decide what a change means for a query — it emits numbered batches of
//   FileSystemChange and notices that UbiquityIndex applies — nor know about sockets or the wire.
// Depends on: UbiquityIndex (the change, container and stat types), UbiquitySystem (the door:
//   `System.call`, `SystemCallError`), CUbiquitySystem (statx, xattrs, eventfd).
