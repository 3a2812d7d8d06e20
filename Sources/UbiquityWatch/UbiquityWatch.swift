// UbiquityWatch — every file-system observation; the only module that talks to the kernel about files.
//
// Owns: the crawler (raw openat/readdir/statx, never following symlinks), inotify with rename
//   pairing, overflow rescans, the watch budget and rescans of unwatched subtrees, cookie sync,
//   and the tag reader (xattrs).
// Must not: decide what a change means for a query — it emits numbered batches of
//   FileSystemChange and notices that UbiquityIndex applies — nor know about sockets or the wire.
// Depends on: UbiquityIndex (the change, container and stat types), CUbiquitySystem (statx,
//   xattrs, eventfd).
