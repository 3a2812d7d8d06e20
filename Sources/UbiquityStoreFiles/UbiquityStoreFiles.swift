// UbiquityStoreFiles owns a relational store on one device's disk (docs/stores.md, "On disk"):
// the store's folder in the container (`.ubiquity-stores/<store>`: every device's log segments,
// the acknowledgement files), this device's segments written durably, other devices' segments
// imported exactly once, and the SQLite cache (typed tables, merge registers, watermarks, the
// change log) that is rebuilt from the segments whenever it is missing or unusable. Also which
// changes of the per-device sync states the journal tells, once each (SyncStateTransition), and
// snapshots and compaction: this device's snapshot every so many segments, other devices'
// snapshots joined when the cache is new or a log's next segment was compacted away, and the
// removal of this device's own segments once its snapshot covers them and every known device has
// acknowledged them (CompactionPlan decides, purely).
//
// Must not: wait for the disk on a Swift task (SQLite, fsync and reads run on each store's own
// Dispatch queue); follow a link in a container; skip a segment it cannot import; remove another
// device's files.
//
// Depends on: UbiquityStore (the merge engine and the segment format), UbiquitySystem (the door:
//   Directory), UbiquityJSON (acknowledgement files, JSON columns), UbiquitySQLite (the cache).
