/// One bucket of the name index as a snapshot saves it (format 3): its key (``NameIndex/bucket(_:)``)
/// and its ids in (name, id) order. A restore checks it and takes it as it is
/// (``NameIndex/restore(_:named:slotCount:names:)``) instead of sorting the names again.
struct SavedNameBucket: Sendable, Equatable {
    var key: String
    var ids: [ItemID]
}
