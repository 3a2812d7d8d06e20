/// Where a container keeps its list: one file per item (the default), the one `grocery.gro`
/// package, or the rows of the container's relational store `grocery` (store mode, with tags).
public enum GroceryStorageFormat: String, Sendable, CaseIterable {
    /// `Documents/Item_<UUID>` files whose content is the name.
    case files
    /// `Documents/grocery.gro`: the list and the images in one package (docs/grocery-package.md).
    case package
    /// The relational store `grocery` of the container (docs/stores.md): the tables `items` and
    /// `tags`, merged property by property across devices; items can be tagged ([`GroceryTable`]).
    case relational

    /// The live query that finds this format's files in `Documents/`; nil for the relational
    /// store, whose rows are not files (it is watched with `store.changed`).
    public var predicate: String? {
        switch self {
        case .files: "kMDItemFSName LIKE 'Item_*'"
        case .package: "kMDItemFSName == 'grocery.gro'"
        case .relational: nil
        }
    }
}
