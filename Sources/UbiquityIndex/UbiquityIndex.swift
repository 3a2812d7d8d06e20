// UbiquityIndex — the item model, the in-memory metadata index and the live-query engine.
//
// Owns: items and their facts (FileStat, IndexedItem, FrozenItem), MetadataIndex with its name
//   index, LiveQuery (membership and sorted results, one for the live queries that ask the same:
//   SharedQueryKey), and the QueryEngine actor: per-query deltas,
//   batching, backpressure, and synchronising with its change source before gathering; telling
//   who asks which containers' folder a batch changed (FolderChanges); clocks
//   and change history (since queries); the saved index's formats (Persistence/: snapshot and
//   journal encoded, checked and restored — written by whoever implements IndexPersistence).
// Must not: touch the file system or the kernel — it is fed numbered batches of FileSystemChange
//   by a change source (UbiquityWatch in the daemon, a scripted source in tests) — nor know
//   about sockets or the wire.
// Depends on: UbiquityPredicate; UbiquityBinary (the byte writer and CRC-32 of the saved index);
//   CUbiquitySystem (prefetch, huge pages); CUbiquityBytes (short copies of names).
