/// A container's listing being applied part by part (``FileSystemChange/listingPart(_:_:)``):
/// where its entries went, so the next part (and the rest of the listing) can find their parents.
struct ListingInParts {
    /// The container's index in the index.
    let container: Int
    let root: ItemID
    /// The item at each position applied so far; nil where an entry could not be placed.
    var ids: [ItemID?] = []
}
