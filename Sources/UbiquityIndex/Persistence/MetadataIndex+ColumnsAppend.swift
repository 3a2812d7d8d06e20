/// Two runs of slots decoded apart, joined (``IndexSnapshot``'s two halves).
extension MetadataIndex.Columns {
    /// Adds `other`'s slots after these, taking its chunks as they are: these must be whole
    /// chunks of every column (``IndexSnapshot/splitAlignment`` slots), and neither has children
    /// tables yet. `other` is left to be dropped (its names' and statuses' slots may be rewritten
    /// in place: ``NameColumn/append(contentsOf:)``, ``StatColumn/append(contentsOf:)``).
    mutating func append(contentsOf other: inout MetadataIndex.Columns) {
        precondition(childrenOf.isEmpty && other.childrenOf.isEmpty, "columns joined after their children tables")
        names.append(contentsOf: &other.names)
        parents.append(chunksOf: other.parents)
        containerOf.append(chunksOf: other.containerOf)
        flagsOf.append(chunksOf: other.flagsOf)
        stats.append(contentsOf: &other.stats)
        generations.append(chunksOf: other.generations)
    }
}
